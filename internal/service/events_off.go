//go:build adcamp_noevents

package service

// eventsOff is true only in a build with the tag adcamp_noevents, which
// exists to measure what the webhook outbox costs a request (bench/README.md,
// "What the outbox costs"): such a build writes no events, so it sends no
// webhooks and its GET /events stays empty. It is never a product setting.
const eventsOff = true
