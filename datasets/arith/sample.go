package arith

// The committed sample datasets/arith/sample.jsonl is Generate(Default(), SampleSeed, SampleSize, 0).
const (
	SampleSeed = 20261130
	SampleSize = 200
)
