package main

// The engines and replicas: the same measurements on SQLite or on a fresh
// PostgreSQL database, against one server or several replicas of it sharing the database,
// and -compare, which runs SQLite, PostgreSQL and PostgreSQL with three replicas and prints
// one table.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Engines loadgen runs on.
const (
	engineSQLite   = "sqlite"
	enginePostgres = "postgres"
)

// defaultPostgres is the server on which loadgen creates its PostgreSQL databases.
const defaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// newDatabase returns the --db of a fresh, empty database named name: a SQLite file in dir,
// or a PostgreSQL database created on cfg.postgres and dropped by the returned func.
func newDatabase(ctx context.Context, cfg *config, dir, name string) (dsn string, drop func(), err error) {
	if cfg.engine == engineSQLite {
		return filepath.Join(dir, name+".db"), func() {}, nil
	}
	admin, err := sql.Open("pgx", cfg.postgres)
	if err != nil {
		return "", nil, fmt.Errorf("open %s: %w", cfg.postgres, err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	dbName := fmt.Sprintf("loadgen_%s_%s", name, hex.EncodeToString(b))
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database %s: %w", dbName, err)
	}
	u, err := url.Parse(cfg.postgres)
	if err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("parse %s: %w", cfg.postgres, err)
	}
	u.Path = "/" + dbName
	drop = func() {
		if cfg.keep {
			fmt.Println("kept database", dbName)
		} else if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "loadgen: drop database %s: %v\n", dbName, err)
		}
		admin.Close()
	}
	return u.String(), drop, nil
}

// cluster is the replicas of one database.
type cluster []*process

// serverEnv returns the environment of the servers on one database: on PostgreSQL it
// carries a new signing key, which every server on that database (replicas, -vs-bin) must
// share; on SQLite nil (this process's: the key is a file beside the database).
func serverEnv(cfg *config) []string {
	if cfg.engine != enginePostgres {
		return nil
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return append(os.Environ(), "ANSWERDESK_SIGNING_KEY="+hex.EncodeToString(key))
}

// startCluster starts cfg.replicas servers on dsn with the environment env (serverEnv).
func startCluster(ctx context.Context, cfg *config, dsn string, env []string, extra ...string) (cluster, error) {
	var c cluster
	for range cfg.replicas {
		p, err := startServer(ctx, cfg.bin, dsn, env, extra...)
		if err != nil {
			c.stop()
			return nil, err
		}
		c = append(c, p)
	}
	return c, nil
}

func (c cluster) stop() {
	for _, p := range c {
		p.stop()
	}
}

// bases returns the replicas' base URLs.
func (c cluster) bases() []string {
	out := make([]string, len(c))
	for i, p := range c {
		out[i] = "http://" + p.addr
	}
	return out
}

// roundRobin hands out the bases in turn.
type roundRobin struct {
	bases []string
	next  atomic.Uint64
}

func (r *roundRobin) base() string {
	return r.bases[(r.next.Add(1)-1)%uint64(len(r.bases))]
}

// summary is one configuration's row of the -compare table.
type summary struct {
	name                 string
	list, byID           *result
	create               latencySummary
	deliveryRate         float64
	deliveryP50          time.Duration
	deliveriesIncomplete bool
}

type latencySummary struct {
	rate     float64
	p50, p99 time.Duration
}

// runCompare runs the read and dispatch scenarios on SQLite with one server, PostgreSQL with
// one and PostgreSQL with three replicas, one after the other, and prints one table.
func runCompare(ctx context.Context, cfg *config, dir string) error {
	configs := []struct {
		engine   string
		replicas int
	}{{engineSQLite, 1}, {enginePostgres, 1}, {enginePostgres, 3}}
	var rows []*summary
	for _, c := range configs {
		run := *cfg
		run.engine, run.replicas = c.engine, c.replicas
		s := &summary{name: fmt.Sprintf("%s, %d replica", c.engine, c.replicas)}
		if c.replicas > 1 {
			s.name += "s"
		}
		fmt.Printf("\n=== %s ===\n", s.name)
		sub := filepath.Join(dir, fmt.Sprintf("%s-%d", c.engine, c.replicas))
		if err := os.MkdirAll(sub, 0o750); err != nil {
			return fmt.Errorf("create %s: %w", sub, err)
		}
		if err := runHTTPScenarios(ctx, &run, sub, s); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if err := runDispatch(ctx, &run, filepath.Join(sub, "dispatch"), s); err != nil {
			return fmt.Errorf("%s: dispatch scenario: %w", s.name, err)
		}
		rows = append(rows, s)
	}
	printCompare(os.Stdout, cfg, rows)
	return nil
}

// printCompare writes the -compare table.
func printCompare(w io.Writer, cfg *config, rows []*summary) {
	fmt.Fprintf(w, "\n%d messages; reads: %d workers for %s each; create: %d POSTs by %d workers, each pushed to a receiver in loadgen\n",
		cfg.messages, cfg.concurrency, cfg.duration, cfg.dispatch, cfg.dispatchConcurrency)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := []string{"", "list req/s", "p50", "p99", "by id req/s", "p50", "p99", "create req/s", "p50", "p99", "deliveries/s", "create->receiver p50"}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	read := func(r *result) string {
		if r == nil {
			return "-\t-\t-"
		}
		s := fmt.Sprintf("%.0f\t%s\t%s", r.rate(), ms(r.percentile(.5)), ms(r.percentile(.99)))
		if r.aborted || r.errors > 0 {
			s = fmt.Sprintf("%.0f (%d errors)\t%s\t%s", r.rate(), r.errors, ms(r.percentile(.5)), ms(r.percentile(.99)))
		}
		return s
	}
	for _, s := range rows {
		deliveries := fmt.Sprintf("%.0f", s.deliveryRate)
		if s.deliveriesIncomplete {
			deliveries += " (incomplete)"
		}
		fmt.Fprintf(tw, "%-22s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t\n", s.name, read(s.list), read(s.byID),
			s.create.rate, ms(s.create.p50), ms(s.create.p99), deliveries, ms(s.deliveryP50))
	}
	tw.Flush()
}
