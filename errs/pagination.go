package errs

import (
	"errors"
	"strconv"
	"strings"
)

// ErrPagination matches every *PaginationError.
var ErrPagination = errors.New("runpod: the pages of a list do not chain")

// The causes of a *PaginationError, matched with errors.Is. Each one is a
// list the platform would serve forever, or one the SDK cannot go on
// reading, so the SDK stops instead of looping.
var (
	// ErrRepeatedCursor: a page named as the next page a cursor an
	// earlier page of the same list had named.
	ErrRepeatedCursor = errors.New("a page named a cursor the list had already named")
	// ErrEmptyPage: a page held no item and said a next page follows.
	ErrEmptyPage = errors.New("an empty page said a next page follows")
	// ErrMissingCursor: a page said a next page follows and gave no
	// cursor to it.
	ErrMissingCursor = errors.New("a page said a next page follows without a cursor to it")
	// ErrTooManyPages: the list went on past option.MaxListPages pages.
	ErrTooManyPages = errors.New("the list goes on past the most pages the SDK reads")
)

// PaginationError reports a list whose pages, as the platform answered
// them, cannot be followed to an end: the walk stopped there, and the
// items read before it are not the whole list. It matches ErrPagination
// and its cause (ErrRepeatedCursor, ErrEmptyPage, ErrMissingCursor,
// ErrTooManyPages).
type PaginationError struct {
	// Method and Path name the list, as the request went (the path
	// without its query, which holds the cursor).
	Method, Path string
	// Page is the page whose answer stopped the walk, from 1.
	Page int
	// Items counts the items of the pages read, that one included.
	Items int
	// Cursor is the cursor that page named, when it named one, as the
	// platform wrote it (an opaque value).
	Cursor string
	// Err is the cause.
	Err error
}

// Error names the list, the page and the cause.
func (e *PaginationError) Error() string {
	var b strings.Builder
	startMessage(&b, e.Method, e.Path)
	b.WriteString("page " + strconv.Itoa(e.Page) + " (" + strconv.Itoa(e.Items) + " items so far): ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("the pages do not chain")
	}
	return b.String()
}

// Is reports whether target is ErrPagination.
func (e *PaginationError) Is(target error) bool { return target == ErrPagination }

// Unwrap returns the cause.
func (e *PaginationError) Unwrap() error { return e.Err }
