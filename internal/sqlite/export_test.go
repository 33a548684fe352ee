package sqlite

// ChangeListSQL is changeListSQL, for the plan tests.
var ChangeListSQL = changeListSQL

// DeliveryUpdate is deliveryUpdate, for the plan tests.
var DeliveryUpdate = deliveryUpdate
