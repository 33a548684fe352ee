package sqlite

// ChangeListSQL is changeListSQL, for the plan tests.
var ChangeListSQL = changeListSQL

// StoredHoursSQL is storedHoursSQL, for the plan tests.
var StoredHoursSQL = storedHoursSQL

// DeliveryKeywordsSQL is deliveryKeywordsSQL, for the plan tests.
var DeliveryKeywordsSQL = deliveryKeywordsSQL
