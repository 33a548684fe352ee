package sqlite

// ChangeListSQL is changeListSQL, for the plan tests.
var ChangeListSQL = changeListSQL

// CampaignWithSpend is GetCampaignSpend's statement, for the plan tests.
const CampaignWithSpend = campaignWithSpend

// StoredHoursSQL is storedHoursSQL, for the plan tests.
var StoredHoursSQL = storedHoursSQL

// DeliveryKeywordsSQL is deliveryKeywordsSQL, for the plan tests.
var DeliveryKeywordsSQL = deliveryKeywordsSQL

// KeywordsFoundSQL is keywordsFoundSQL, for the plan tests.
var KeywordsFoundSQL = keywordsFoundSQL
