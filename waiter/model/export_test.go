package model

// WarningsOf is warningsOf, for the tests of package model_test.
var WarningsOf = warningsOf
