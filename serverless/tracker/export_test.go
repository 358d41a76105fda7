package tracker

// FileLocking reports whether NewFileStore locks its file on this
// platform, for the tests.
const FileLocking = fileLocking

// SetCompactSlack sets how many dead lines a file store may hold beyond
// its live records, and returns the function that restores it.
func SetCompactSlack(n int) (restore func()) {
	old := compactSlack
	compactSlack = n
	return func() { compactSlack = old }
}
