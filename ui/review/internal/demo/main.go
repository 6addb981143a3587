// Command demo runs the Review tab alone in a real Fyne window, for looking
// at it and for the end-to-end test (keys sent with xdotool under Xvfb).
//
//	go run ./ui/review/internal/demo -db /tmp/r.db -seed -user rita
//
// -seed records two real episodes first (practice sites, headless
// Chromium) when the store has none to review.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"waymark/dataset"
	"waymark/ui"
	"waymark/ui/review"
	"waymark/ui/review/reviewtest"
)

func main() {
	db := flag.String("db", "", "database file (default: the Waymark default)")
	user := flag.String("user", "rita", "reviewer name")
	doSeed := flag.Bool("seed", false, "record two demo episodes when nothing is reviewable")
	echo := flag.Bool("echo", false, "print a line for each key and shortcut after the tab has handled it (the end-to-end test waits for these)")
	flag.Parse()
	s, err := dataset.Open(*db)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	defer s.Close()
	if *doSeed {
		q, err := s.ReviewQueue(context.Background(), dataset.QueueFilter{})
		if err == nil && q.Total == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			ids, err := reviewtest.Record(ctx, s, reviewtest.Scripts)
			cancel()
			if err != nil {
				fmt.Fprintln(os.Stderr, "demo: recording the demo episodes failed:", err)
				os.Exit(1)
			}
			fmt.Println("recorded", len(ids), "episodes")
		}
	}
	a := fyneapp.NewWithID("io.waymark.review-demo")
	w := a.NewWindow("Waymark — Review")
	tab := review.New(&ui.Context{App: a, Window: w, Store: s, User: func() string { return *user }})
	w.SetContent(tab.Content())
	c := w.Canvas()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		tab.TypedKey(ev)
		if *echo {
			fmt.Println("key", ev.Name)
		}
	})
	for _, sc := range tab.Shortcuts() {
		c.AddShortcut(sc, func(sc fyne.Shortcut) {
			tab.TypedShortcut(sc)
			if *echo {
				fmt.Println("shortcut", sc.ShortcutName())
			}
		})
	}
	w.Resize(fyne.NewSize(1240, 900))
	w.SetOnClosed(tab.Close)
	fmt.Println("ready")
	w.ShowAndRun()
}
