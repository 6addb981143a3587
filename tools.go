//go:build tools

// This file pins the project's chosen dependencies in go.mod while the code
// that uses them grows; `go mod tidy` keeps what a tagged file imports.
package main

import (
	_ "fyne.io/fyne/v2/app"
	_ "fyne.io/fyne/v2/test"
	_ "github.com/chromedp/chromedp"
	_ "github.com/coder/websocket"
	_ "github.com/disintegration/imaging"
	_ "github.com/gen2brain/beeep"
	_ "github.com/google/uuid"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/parquet-go/parquet-go"
)
