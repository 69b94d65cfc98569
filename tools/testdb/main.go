// Command testdb-ferretdb runs FerretDB v2 (embedded) in front of a PostgreSQL cluster with the
// DocumentDB extension: the MongoDB-wire test database of tests, benchmarks and CI.
//
// A wrapper rather than `go install .../cmd/ferretdb`: the stock command's version file is
// generated at release time and is not part of the module; the embeddable package needs none.
//
// It prints "ready <mongodb uri>" on stdout once it accepts connections, and stops on SIGTERM or
// SIGINT (closing its listener and its PostgreSQL pool).
//
// Usage: testdb-ferretdb -listen 127.0.0.1:27017 -postgresql-url postgres://... -state-dir DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/v2/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "address for MongoDB clients")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL URL of the DocumentDB cluster (required)")
	stateDir := flag.String("state-dir", "", "FerretDB state directory (required)")
	logLevel := flag.String("log-level", "error", "debug, info, warn or error")
	flag.Parse()

	if *pgURL == "" || *stateDir == "" {
		log.Fatal("-postgresql-url and -state-dir are required")
	}
	if err := os.MkdirAll(*stateDir, 0o755); err != nil {
		log.Fatal(err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatal(err)
	}
	telemetry := false

	f, err := ferretdb.New(&ferretdb.Config{
		PostgreSQLURL: *pgURL,
		ListenAddr:    *listen,
		StateDir:      *stateDir,
		LogLevel:      level,
		LogOutput:     os.Stderr,
		Telemetry:     &telemetry,
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-signals
		log.Printf("stopping on %v", s)
		cancel()
	}()

	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()

	// MongoDBURI is valid once Run has bound the listener.
	fmt.Printf("ready %s\n", f.MongoDBURI())
	<-done
	log.Print("stopped")
}
