package a

// Exported is declared for the tests only: [T].
var Exported = 1
