package billing

// Each report's amounts are listed field by field (reports.go): the totals
// are summed and compared through these lists, so a field renamed in the
// generated models fails to compile there instead of silently leaving the
// totals.

// field is one amount of an amounts type, by name, to read or add to.
type field struct {
	name string
	v    *Amount
}

// amounts is a pointer to an amounts type A, which lists A's fields.
type amounts[A any] interface {
	*A
	fields() []field
}

// recordOf is a record type whose amounts are an A.
type recordOf[A any] interface {
	Record
	amounts() A
}

// sum adds up the records' amounts, field by field.
func sum[A any, PA amounts[A], R recordOf[A]](records []R) A {
	var total A
	into := PA(&total).fields()
	for _, r := range records {
		a := r.amounts()
		for i, f := range PA(&a).fields() {
			*into[i].v += *f.v
		}
	}
	return total
}
