// Package storetest gives tests outside package dataset a raw SQL handle on
// a store's file, for states the store's API cannot make (rows with fixed
// ids and times, hand-written reviews, thousands of rows in one
// transaction) and for looking at columns the API does not return. The app
// never imports it: only package dataset reads and writes the tables, so
// the SQL here breaks loudly (in the tests) when the schema changes.
package storetest

import (
	"database/sql"
	"fmt"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver

	"waymark/dataset"
)

// DB opens a second handle on s's file and closes it when tb ends. Call it
// once per test and keep the handle.
func DB(tb testing.TB, s *dataset.Store) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", fmt.Sprintf("file:%s?_foreign_keys=on&_busy_timeout=5000", s.Path()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
