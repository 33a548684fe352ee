// Package client is the Go SDK of the Campaign Advertising Open API
// (adcamp): campaigns, their ad groups and keywords, and channel accounts,
// over HTTP and JSON, with every request signed with HMAC-SHA256.
//
// Quick start:
//
//	c, err := client.New(os.Getenv("ADCAMP_API_KEY"), os.Getenv("ADCAMP_API_SECRET"),
//		client.WithBaseURL(client.SandboxURL))
//	if err != nil { ... }
//	cmp, err := c.CreateCampaign(ctx, client.CampaignCreate{
//		Name: "Spring sale", BudgetDaily: client.USD("25.00"), Marketplace: "US"}, nil)
//	ag, err := c.CreateAdGroup(ctx, cmp.ID, client.AdGroupCreate{Name: "Shoes", DefaultBid: client.USD("0.75")}, nil)
//	kws, err := c.CreateKeywords(ctx, ag.ID, []client.KeywordCreate{{Text: "red shoes", MatchType: client.MatchExact}}, nil)
//	for cmp, err := range c.AllCampaigns(ctx, nil) { ... }
//	if client.IsNotFound(err) { ... }
//
// # Requests
//
// Every method takes a context first and returns typed values. Money is
// an exact number of cents ([Money], [USD], [Cents]); dates are [Date].
// Update types use pointers for fields that may be left out ([Ptr]) and
// [Nullable] for the fields that may also be cleared with an explicit
// null ([Set], [Null]). Updates and deletes take an optional version
// (IfMatch) so that they act only on what was read; creates and updates
// can be validated without storing anything (ValidateOnly). List methods
// return one [Page]; All* methods return an iterator over every page.
// [Client.NewRequest] and [Client.Do] reach any route the methods do not.
//
// # Failures
//
// An error answer is an *[Error] with the HTTP status, the API's code, its
// message, the bad fields and the request id; the Is* predicates
// ([IsNotFound], [IsDuplicateKeyword], [IsPreconditionFailed],
// [IsValidation], ...) test for the common cases.
//
// # Retries and clock
//
// Network errors and 429, 502, 503 and 504 answers are retried with
// exponential backoff and full jitter, honouring Retry-After, within the
// client's [RetryPolicy]. The client sends every POST, PUT and DELETE
// with a random Idempotency-Key header, the same on each retry, so the
// server runs it once and answers a retry with the first answer (a change
// whose answer was lost on the way back is not made twice, nor met by its
// own retry as a 412 or a 404). Every attempt is signed afresh. If
// the server says the timestamp is too far from its clock, the client
// measures the difference, corrects its clock for every later request and
// retries once: by at most [MaxClockCorrection], and with an https base
// URL only from an answer that came over TLS (the answer is not signed).
//
// The client follows no redirect, not even with an *http.Client of the
// caller's ([WithHTTPClient]): a signed request, with its Idempotency-Key
// and body, is for the host it was signed for. A redirect is returned as
// an *Error naming where it pointed.
//
// The secret never appears in errors, logs, or the fmt and log/slog
// output of a Client.
package client
