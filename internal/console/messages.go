package console

import (
	"strconv"
	"strings"

	"github.com/adcamp/adcamp"
)

// The console's words for what is wrong with a field of its forms. The
// service reports each problem with the API's words ("must be a JSON
// number", "unless channel_account_id is given") and its kind; a form
// shows the console's own, next to the field, naming the form's other
// fields as the form labels them. Each message is written whole: none is
// a label glued to the API's words.

// kindMessages are the messages of a kind of problem that suit any field,
// shown under the field they are about; {} is the issue's param.
var kindMessages = map[adcamp.IssueKind]string{
	adcamp.IssueRequired:       "This is required.",
	adcamp.IssueEmpty:          "This cannot be blank.",
	adcamp.IssueTooLong:        "Use at most {} characters.",
	adcamp.IssueTooShort:       "Use at least {} characters.",
	adcamp.IssueControl:        "Remove the control characters, such as tabs or line breaks.",
	adcamp.IssueInvisible:      "Remove the invisible formatting characters (such as zero-width spaces), often pasted by accident.",
	adcamp.IssueNotVisible:     "Use at least one letter, digit or symbol.",
	adcamp.IssueNotAmount:      "Enter an amount in US dollars, such as 25 or 25.50.",
	adcamp.IssueCents:          "Use at most two decimals, such as 25.50: amounts are in whole cents.",
	adcamp.IssueNotPositive:    "Enter an amount of more than $0.00.",
	adcamp.IssueTooLarge:       "Enter an amount of at most ${}.",
	adcamp.IssueNotDate:        "Enter a date as YYYY-MM-DD, such as 2026-12-31.",
	adcamp.IssueDateRange:      "Enter a date from {}.",
	adcamp.IssuePast:           "Choose today ({}, UTC) or a later day.",
	adcamp.IssueBeforeStart:    "Choose the start date or a later day.",
	adcamp.IssueNotOneOf:       "Choose one of the options.",
	adcamp.IssueReadOnly:       "This cannot be changed here.",
	adcamp.IssueNoSuchChannel:  "Choose one of your channel accounts.",
	adcamp.IssueOtherMarket:    "The channel account you chose sells on {}: choose {} here, or leave the marketplace empty.",
	adcamp.IssueNotEmail:       "Enter an email address, such as ann@example.com.",
	adcamp.IssueCommonPassword: "This is one of the most common passwords: choose another.",
	adcamp.IssueEmailPassword:  "Do not use your email address as your password: choose another.",
	adcamp.IssueRepeated:       "Do not use one character over and over: choose another password.",
	adcamp.IssueSamePassword:   "Choose a new password, not your current one.",
	adcamp.IssueWrongPassword:  "That is not your password.",
	adcamp.IssueWrongSecret:    "That is neither your password nor a current code of your authenticator app.",
	adcamp.IssueWrongCode:      "That is not the code your app shows now. Check that your phone's clock is right, then try again.",
	adcamp.IssueTooMany:        "Paste at most {} keywords at once.",
	adcamp.IssueDuplicate:      "This keyword is in the ad group already, with this match type.",
}

// fieldMessages are the messages that say more for one field.
var fieldMessages = map[string]map[adcamp.IssueKind]string{
	"name":         {adcamp.IssueEmpty: "Enter a name."},
	"account_name": {adcamp.IssueEmpty: "Enter a name for the account."},
	"email":        {adcamp.IssueEmpty: "Enter an email address."},
	"text":         {adcamp.IssueEmpty: "Enter the keyword."},
	"budget_daily": {
		adcamp.IssueRequired:    "Enter a daily budget, such as 25.50.",
		adcamp.IssueNotPositive: "The daily budget must be more than $0.00.",
		adcamp.IssueTooLarge:    "The daily budget can be at most ${}.",
	},
	"default_bid": {
		adcamp.IssueRequired:    "Enter a default bid, such as 0.45.",
		adcamp.IssueNotPositive: "The default bid must be more than $0.00.",
	},
	"bid":         {adcamp.IssueNotPositive: "The bid must be more than $0.00, or empty for the ad group's default."},
	"marketplace": {adcamp.IssueRequired: "Choose a marketplace.", adcamp.IssueNotOneOf: "Choose a marketplace from the list."},
	"end_date": {
		adcamp.IssuePast:        "The end date has passed: choose today ({}, UTC) or a later day.",
		adcamp.IssueBeforeStart: "The end date is before the start date ({}): choose that day or a later one.",
	},
	"match_type": {adcamp.IssueRequired: "Choose a match type.", adcamp.IssueNotOneOf: "Choose exact, phrase or broad."},
	"role":       {adcamp.IssueNotOneOf: "Choose a role."},
	"confirm": {
		adcamp.IssueRequired: "Enter your password (or a current code of your authenticator app): a production key needs it.",
	},
	"current_password": {adcamp.IssueWrongPassword: "That is not your current password."},
	"code":             {adcamp.IssueRequired: "Enter the code your app shows now."},
	"items":            {adcamp.IssueRequired: "Paste at least one keyword, one a line."},
}

// issueText is what the console says of a problem of a field. A problem
// of no kind the console knows (none the forms meet) keeps the API's
// words, after the field's label.
func issueText(is adcamp.FieldIssue) string {
	msg, ok := fieldMessages[is.Field][is.Kind]
	if !ok {
		msg, ok = kindMessages[is.Kind]
	}
	if !ok {
		return sentence(fieldLabels[is.Field], is.Issue)
	}
	return strings.ReplaceAll(msg, "{}", groupedAmount(is.Param))
}

// groupedAmount writes a number such as "1000000.00" with its thousands
// grouped, "1,000,000.00"; any other text as it is.
func groupedAmount(amount string) string {
	whole, cents, _ := strings.Cut(amount, ".")
	n, err := strconv.Atoi(whole)
	if err != nil {
		return amount
	}
	if cents != "" {
		return grouped(n) + "." + cents
	}
	return grouped(n)
}

// shortLabel names a field in a list of problems: "Status".
func shortLabel(field string) string {
	label, ok := fieldLabels[field]
	if !ok {
		return field
	}
	label = strings.TrimPrefix(label, "The ")
	return strings.ToUpper(label[:1]) + label[1:]
}
