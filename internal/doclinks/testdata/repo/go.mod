module example.com/repo

go 1.25

// The version TestCheckFindsBrokenLinks is built with, which the module
// cache holds.
require go.uber.org/goleak v1.3.0
