package sqlite

// ChangeListSQL is changeListSQL, for the plan tests.
var ChangeListSQL = changeListSQL
