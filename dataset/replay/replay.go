// Package replay runs a stored episode's actions again in a fresh engine
// and compares every step with the stored one.
package replay
