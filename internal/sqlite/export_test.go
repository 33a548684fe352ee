package sqlite

// ChangeListSQL is changeListSQL, for the plan tests.
var ChangeListSQL = changeListSQL

// CampaignWithSpend is GetCampaignSpend's statement, for the plan tests.
const CampaignWithSpend = campaignWithSpend
