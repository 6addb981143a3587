package hfexport

// renderCard is the card the export writes, for the card's tests.
func renderCard(o *Options, splits []SplitCount, s *cardStats) string {
	card, err := cardText(o, splits, s)
	if err != nil {
		panic(err) // a test fails on it
	}
	return card
}
