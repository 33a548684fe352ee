//go:build !adcamp_nohistory

package service

// historyWrites says whether a change's history records are stored. Only
// a build with the tag adcamp_nohistory turns it off, to count what the
// records cost (bench/instructions.sh with TAGS=adcamp_nohistory): it is
// not a setting of the product, whose every change has its record.
const historyWrites = true
