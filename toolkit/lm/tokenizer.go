package lm

import (
	"fmt"
	"strings"
)

// Special token ids shared by every tokenizer.
const (
	PAD = 0 // padding (never predicted, never attended to)
	BOS = 1 // start of sequence, placed before the prompt
	EOS = 2 // end of completion
	// NumSpecial is the number of special tokens; symbol ids start here.
	NumSpecial = 3
)

// Tokenizer maps the characters of a synthetic task's alphabet to ids NumSpecial.. and back.
type Tokenizer struct {
	Alphabet string `json:"alphabet"`
	index    map[rune]int32
}

// NewTokenizer builds a character tokenizer; the alphabet must not repeat characters.
func NewTokenizer(alphabet string) (*Tokenizer, error) {
	t := &Tokenizer{Alphabet: alphabet, index: map[rune]int32{}}
	for i, r := range []rune(alphabet) {
		if _, dup := t.index[r]; dup {
			return nil, fmt.Errorf("tokenizer: character %q repeated in the alphabet", r)
		}
		t.index[r] = int32(NumSpecial + i)
	}
	if len(t.index) == 0 {
		return nil, fmt.Errorf("tokenizer: empty alphabet")
	}
	return t, nil
}

// Size is the vocabulary size: special tokens plus the alphabet.
func (t *Tokenizer) Size() int { return NumSpecial + len(t.index) }

// Encode returns the ids of s; a character outside the alphabet is an error naming it.
func (t *Tokenizer) Encode(s string) ([]int32, error) {
	out := make([]int32, 0, len(s))
	for i, r := range s {
		id, ok := t.index[r]
		if !ok {
			return nil, fmt.Errorf("tokenizer: character %q at byte %d of %q is not in the alphabet %q", r, i, s, t.Alphabet)
		}
		out = append(out, id)
	}
	return out, nil
}

// Decode turns ids back into text, stopping at EOS and skipping PAD and BOS.
func (t *Tokenizer) Decode(ids []int32) string {
	var b strings.Builder
	runes := []rune(t.Alphabet)
	for _, id := range ids {
		switch {
		case id == EOS:
			return b.String()
		case id < NumSpecial:
			continue
		case int(id-NumSpecial) < len(runes):
			b.WriteRune(runes[id-NumSpecial])
		default:
			b.WriteRune('�')
		}
	}
	return b.String()
}

// TokenString renders one id for tables and heatmaps (specials as <pad>, <bos>, <eos>).
func (t *Tokenizer) TokenString(id int32) string {
	switch id {
	case PAD:
		return "<pad>"
	case BOS:
		return "<bos>"
	case EOS:
		return "<eos>"
	}
	return t.Decode([]int32{id})
}
