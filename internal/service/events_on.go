//go:build !adcamp_noevents

package service

// eventsOff: see events_off.go.
const eventsOff = false
