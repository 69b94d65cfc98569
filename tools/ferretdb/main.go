// Command ferretdb-harness runs FerretDB 1.24 (SQLite backend) for tests and benchmarks, behind a
// small wire proxy that restores MongoDB's single-document write atomicity.
//
// Why the proxy exists: FerretDB 1.x applies update and findAndModify as read-then-write without a
// lock, so two concurrent guarded increments ({count: {$lt: limit}}, {$inc: {count: 1}}) can both
// succeed. On mongod each single-document write is atomic. The proxy lets only one write command
// (insert, update, delete, findAndModify) run at a time across all client connections, holding a
// global lock from forwarding the request until its reply has come back. Reads, cursors and the
// driver's long-polling hello are never serialised.
//
// Why a wrapper instead of `go install .../cmd/ferretdb`: that binary panics at start-up because its
// version file is generated and not part of the module (FerretDB issue #2982); the embeddable
// package does not need it.
//
// Usage: ferretdb-harness -listen 127.0.0.1:27017 -dir /tmp/ferret-data
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

const (
	opQuery = 2004
	opMsg   = 2013

	flagMoreToCome = 1 << 1
)

// writeCommands are serialised by the proxy. Lower-case keys: the wire protocol accepts
// "findandmodify" as well as "findAndModify".
var writeCommands = map[string]bool{
	"insert":        true,
	"update":        true,
	"delete":        true,
	"findandmodify": true,
}

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "address the proxy listens on (what clients connect to)")
	dir := flag.String("dir", "", "directory for the SQLite files (required)")
	noProxy := flag.Bool("no-proxy", false, "expose FerretDB directly, without the write-serialising proxy (for demonstrating the race)")
	logLevel := flag.String("log-level", "error", "FerretDB log level: debug, info, warn, error")
	// A test database needs no fsync per commit: WAL with synchronous=NORMAL is still crash-safe
	// for the database file and much faster. Pass -sqlite-sync full to measure with fsyncs.
	sqliteSync := flag.String("sqlite-sync", "normal", "SQLite synchronous pragma: off, normal, full")
	flag.Parse()

	if *dir == "" {
		log.Fatal("-dir is required")
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	backendAddr := *listen
	if !*noProxy {
		backendAddr = "127.0.0.1:0"
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: backendAddr},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + strings.TrimSuffix(*dir, "/") + "/?_pragma=synchronous(" + *sqliteSync + ")",
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := f.Run(ctx); err != nil {
			log.Print(err)
		}
	}()

	// MongoDBURI blocks until the listener is bound, which gives us its real port.
	uri := f.MongoDBURI()
	if *noProxy {
		fmt.Printf("ready %s (no proxy)\n", uri)
		<-done
		return
	}

	upstream := strings.TrimSuffix(strings.TrimPrefix(uri, "mongodb://"), "/")
	if i := strings.IndexAny(upstream, "/?"); i >= 0 {
		upstream = upstream[:i]
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ready mongodb://%s/ (proxy to %s)\n", ln.Addr(), upstream)

	go func() {
		<-ctx.Done()
		ln.Close()
	}()

	p := &proxy{upstream: upstream}
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		go p.serve(c)
	}
	<-done
}

type proxy struct {
	upstream string
	writeMu  sync.Mutex
}

// serve relays one client connection. The wire protocol is request/reply per connection, so a
// sequential loop suffices: read a request, forward it, relay replies until one without
// moreToCome (exhaust replies keep coming on the same connection).
func (p *proxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	defer server.Close()

	for {
		req, err := readMessage(client)
		if err != nil {
			return
		}
		opCode, flags, cmd := inspect(req)
		expectReply := !(opCode == opMsg && flags&flagMoreToCome != 0)
		serialise := writeCommands[strings.ToLower(cmd)]

		if serialise {
			p.writeMu.Lock()
		}
		err = p.roundTrip(client, server, req, expectReply)
		if serialise {
			p.writeMu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) roundTrip(client, server net.Conn, req []byte, expectReply bool) error {
	if _, err := server.Write(req); err != nil {
		return err
	}
	if !expectReply {
		return nil
	}
	for {
		reply, err := readMessage(server)
		if err != nil {
			return err
		}
		if _, err := client.Write(reply); err != nil {
			return err
		}
		opCode, flags, _ := inspect(reply)
		if opCode != opMsg || flags&flagMoreToCome == 0 {
			return nil
		}
	}
}

// readMessage reads one whole wire message (header included).
func readMessage(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(head[:]))
	if n < 16 || n > 64<<20 {
		return nil, errors.New("bad message length")
	}
	msg := make([]byte, n)
	copy(msg, head[:])
	if _, err := io.ReadFull(r, msg[4:]); err != nil {
		return nil, err
	}
	return msg, nil
}

// inspect returns the op code, the OP_MSG flag bits and the command name (the first key of the
// body section) of a message; the name is empty for anything else.
func inspect(msg []byte) (opCode int32, flags uint32, cmd string) {
	opCode = int32(binary.LittleEndian.Uint32(msg[12:16]))
	if opCode != opMsg || len(msg) < 21 {
		return opCode, 0, ""
	}
	flags = binary.LittleEndian.Uint32(msg[16:20])
	// Sections follow; the body (kind 0) is one BSON document. Kind 1 sections carry document
	// sequences and come with the body in any order.
	i := 20
	for i < len(msg) {
		kind := msg[i]
		i++
		if kind == 0 {
			// BSON: int32 length, then element type byte, then the key as a C string.
			if i+5 > len(msg) {
				return opCode, flags, ""
			}
			start := i + 5
			end := start
			for end < len(msg) && msg[end] != 0 {
				end++
			}
			return opCode, flags, string(msg[start:end])
		}
		if kind == 1 {
			if i+4 > len(msg) {
				return opCode, flags, ""
			}
			size := int(binary.LittleEndian.Uint32(msg[i : i+4]))
			i += size
			continue
		}
		return opCode, flags, ""
	}
	return opCode, flags, ""
}
