// Command compose-check loads and validates a docker-compose file with compose-go, the library
// `docker compose config` is built on, and prints the normalised configuration. It stands in for
// `docker compose config` on machines without the Docker Compose plugin.
//
// Usage: compose-check [-env-file .env.example] docker-compose.yml
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	envFile := flag.String("env-file", "", "environment file for interpolation")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: compose-check [-env-file FILE] docker-compose.yml")
		os.Exit(2)
	}
	file, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	opts := []cli.ProjectOptionsFn{cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithOsEnv, cli.WithConsistency(true), cli.WithResolvedPaths(true)}
	if *envFile != "" {
		opts = append(opts, cli.WithEnvFiles(*envFile), cli.WithDotEnv)
	}
	options, err := cli.NewProjectOptions([]string{file}, opts...)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalYAML()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compose-check:", err)
	os.Exit(1)
}
