//go:build adcamp_nohistory

package service

// historyWrites is off in this build (tag adcamp_nohistory): changes are
// made without their history records, only to measure the records' cost
// (see history_on.go). Never ship such a build.
const historyWrites = false
