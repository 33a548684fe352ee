package adcamp

import (
	"errors"
	"fmt"
)

// IssueKind is what is wrong with a field, for a program to test (see
// FieldIssue). The API's answer carries the issue's text only.
type IssueKind string

// The kinds of field issues, with what each one's Param holds.
const (
	IssueRequired       IssueKind = "required"        // missing
	IssueEmpty          IssueKind = "empty"           // blank
	IssueTooLong        IssueKind = "too_long"        // Param: the most characters allowed
	IssueTooShort       IssueKind = "too_short"       // Param: the fewest characters allowed
	IssueControl        IssueKind = "control"         // control characters
	IssueInvisible      IssueKind = "invisible"       // invisible formatting characters
	IssueNotVisible     IssueKind = "not_visible"     // nothing visible
	IssueNotAmount      IssueKind = "not_amount"      // not an amount of money
	IssueCents          IssueKind = "cents"           // an amount beyond the cent
	IssueNotPositive    IssueKind = "not_positive"    // an amount of 0 or less
	IssueTooLarge       IssueKind = "too_large"       // Param: the largest amount allowed
	IssueNotDate        IssueKind = "not_date"        // not a date written YYYY-MM-DD
	IssueDateRange      IssueKind = "date_range"      // Param: the dates allowed, "2000-01-01 to 2100-12-31"
	IssuePast           IssueKind = "past"            // a date before Param, today (UTC)
	IssueBeforeStart    IssueKind = "before_start"    // an end before Param, the start date
	IssueNotOneOf       IssueKind = "not_one_of"      // Param: the values allowed, "a, b, c"
	IssueReadOnly       IssueKind = "read_only"       // a field that cannot be set here
	IssueNoSuchChannel  IssueKind = "no_such_channel" // no such channel account
	IssueOtherMarket    IssueKind = "other_market"    // Param: the marketplace of the channel account chosen
	IssueNotEmail       IssueKind = "not_email"       // not an email address
	IssueCommonPassword IssueKind = "common_password" // one of the most common passwords
	IssueEmailPassword  IssueKind = "email_password"  // a password that is the email
	IssueRepeated       IssueKind = "repeated"        // a password of one character repeated
	IssueSamePassword   IssueKind = "same_password"   // a new password that is the current one
	IssueWrongPassword  IssueKind = "wrong_password"  // not the user's password
	IssueWrongSecret    IssueKind = "wrong_secret"    // neither the user's password nor a current code of their app
	IssueWrongCode      IssueKind = "wrong_code"      // not the code the app shows now
	IssueTooMany        IssueKind = "too_many"        // Param: the most items allowed
	IssueDuplicate      IssueKind = "duplicate"       // a keyword its ad group has already
	IssueRepeats        IssueKind = "repeats"         // Param: the index of the earlier item of the batch it repeats
)

// AddKind records a problem with field, of kind, with the API's text.
func (is *Issues) AddKind(field string, kind IssueKind, param, format string, args ...any) {
	*is = append(*is, FieldIssue{Field: field, Issue: fmt.Sprintf(format, args...), Kind: kind, Param: param})
}

// MoneyIssue is the kind of a ParseMoney error.
func MoneyIssue(err error) IssueKind {
	switch {
	case errors.Is(err, errMoneyPrecision):
		return IssueCents
	case errors.Is(err, errMoneyRange):
		return IssueTooLarge
	}
	return IssueNotAmount
}
