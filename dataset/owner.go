package dataset

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Which process owns an episode being recorded, and whether it still lives:
// what Open asks before it marks an episode interrupted, and what a merge
// asks before it writes.

// staleForeignRecording is how long an episode recorded on another host may
// stay silent before it is taken for dead (its owner cannot be checked).
const staleForeignRecording = 24 * time.Hour

// markInterrupted marks "recording" episodes whose recording process is gone
// as interrupted. An episode of a live process (this one, or another program
// on this machine using the same file, such as `waymark serve --record`) is
// left alone: its owner column names the process by host, pid and a start
// token (boot id + the process's start time), so a reused pid is not taken
// for the original process. It writes nothing when nothing is to be marked.
func (s *Store) markInterrupted() error {
	rows, err := s.db.Query(`SELECT id, owner, COALESCE((SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
		FROM episodes WHERE status='recording'`)
	if err != nil {
		return err
	}
	var dead []string
	for rows.Next() {
		var id, owner, last string
		if err := rows.Scan(&id, &owner, &last); err != nil {
			rows.Close()
			return err
		}
		if !ownerAlive(owner, ParseTime(last)) {
			dead = append(dead, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(dead) == 0 {
		return nil
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range dead {
		if _, err := tx.Exec(`UPDATE episodes SET status='interrupted', end_reason=CASE WHEN end_reason='' THEN 'interrupted' ELSE end_reason END,
			ended_at=COALESCE(ended_at, (SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
			WHERE id=? AND status='recording'`, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// processOwner names this process for episodes.owner: "host|pid|token".
func processOwner() string {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return host + "|" + strconv.Itoa(pid) + "|" + startToken(pid)
}

// startToken identifies one run of process pid: the boot id and the
// process's start time in clock ticks since boot (/proc/PID/stat field 22).
// Where /proc is missing it is "" and only the pid is checked.
func startToken(pid int) string {
	st, _, ok := procStat(pid)
	if !ok {
		return ""
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(boot)) + ":" + st
}

// procStat reads a process's start time and state from /proc.
func procStat(pid int) (start, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", false
	}
	// The command name is in parentheses and may hold spaces: fields start
	// after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", "", false
	}
	return f[19], f[0], true
}

// ownerAlive reports whether the process that owns a recording episode may
// still be running. Unknown owners (episodes from before the owner column)
// count as dead; owners on another host count as alive until the episode has
// been silent for staleForeignRecording.
func ownerAlive(owner string, lastActivity time.Time) bool {
	parts := strings.SplitN(owner, "|", 3)
	if len(parts) != 3 {
		return false
	}
	host, _ := os.Hostname()
	if parts[0] != host {
		return time.Since(lastActivity) < staleForeignRecording
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		// No /proc: ask the kernel whether the pid exists.
		return syscall.Kill(pid, 0) == nil
	}
	_, state, ok := procStat(pid)
	if !ok || state == "Z" || state == "X" {
		return false
	}
	return parts[2] == "" || parts[2] == startToken(pid)
}
