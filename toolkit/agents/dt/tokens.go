package dt

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/paperlab/paperlab/toolkit/lm"
)

// Token ids of the decision transformer's stream. lm reserves PAD (0) and BOS (1); then SEP (the
// end of a prompt demonstration), OBS (a position whose embedding is its observation's patch), the
// return-to-go bins, the actions (shared by every embodiment: one reads the first NumActions), and
// the prefix tokens (task parts and embodiment).
const (
	SEP int32 = 2
	OBS int32 = 3
	// firstRTG is the id of the lowest return-to-go bin.
	firstRTG int32 = 4
)

// Vocab lays out the ids of a configuration; with Steps (Config.StreamSteps) the step tokens — one
// per (return-to-go bin, previous action or none) — follow the prefix tokens. PrefixInObs and Aux
// are how Pack fills a batch (Config.PrefixInObs: the prefix multi-hot after each observation in
// its patch; Config.AuxWeight > 0: the auxiliary targets of Seq.Aux).
type Vocab struct {
	RTGBins, Actions, Prefixes int
	Steps                      bool
	PrefixInObs, Aux           bool
}

// Size is the number of token ids.
func (v Vocab) Size() int {
	n := int(firstRTG) + v.RTGBins + v.Actions + v.Prefixes
	if v.Steps {
		n += v.RTGBins * (v.Actions + 1)
	}
	return n
}

// Step is the one-token step (StreamSteps) of return-to-go g and previous action prev (−1: none,
// the first step of a stream).
func (v Vocab) Step(g float64, prev int) int32 {
	bin := v.RTG(g) - firstRTG
	return firstRTG + int32(v.RTGBins+v.Actions+v.Prefixes) + bin*int32(v.Actions+1) + int32(prev+1)
}

// RTG is the token of a return-to-go g ∈ [0, 1]: bin ⌊g·RTGBins⌋, clipped to the bins.
func (v Vocab) RTG(g float64) int32 {
	b := int(math.Floor(g * float64(v.RTGBins)))
	return firstRTG + int32(max(0, min(v.RTGBins-1, b)))
}

// Action is the token of action a; ActionOf inverts it (−1 for a token that is no action).
func (v Vocab) Action(a int) int32 { return firstRTG + int32(v.RTGBins+a) }
func (v Vocab) ActionOf(tok int32) int {
	a := int(tok - v.Action(0))
	if a < 0 || a >= v.Actions {
		return -1
	}
	return a
}

// Prefix is the token of prefix entry p (a task part or an embodiment).
func (v Vocab) Prefix(p int) int32 { return firstRTG + int32(v.RTGBins+v.Actions+p) }

// Seq is one trajectory as the agent reads it: its prefix (task parts and embodiment, ids in
// [0, Vocab.Prefixes)), per step the observation, the return-to-go before acting (in [0, 1]) and the
// action taken; Prompt, when set, is a demonstration placed in context before the trajectory
// (Prompt-DT; its own prefix is not repeated). During acting the last step has no action yet
// (len(Actions) = len(Obs) − 1). Aux, when set, is a class per step of the trajectory (−1: none) that
// an auxiliary head learns to predict from that step's hidden state (Config.AuxWeight).
type Seq struct {
	Prefix  []int
	Obs     [][]float32
	RTG     []float64
	Actions []int
	Prompt  *Seq
	Aux     []int
}

// tokens lays out a sequence: BOS, prefix, [prompt steps…, SEP], steps…, a step being (RTG, OBS,
// ACT) or, with Steps, one token (Step) carrying the observation; it returns the ids, each
// position's observation (nil for a token), the positions that read the trajectory's own
// observations (where its actions are predicted) and the action token to predict at each (−1 for
// the last step of an acting stream, which has none yet).
func (v Vocab) tokens(s Seq) (ids []int32, obs [][]float32, obsAt []int, targets []int32, err error) {
	add := func(id int32, o []float32) {
		ids, obs = append(ids, id), append(obs, o)
	}
	add(lm.BOS, nil)
	for _, p := range s.Prefix {
		if p < 0 || p >= v.Prefixes {
			return nil, nil, nil, nil, fmt.Errorf("dt: prefix entry %d out of [0, %d)", p, v.Prefixes)
		}
		add(v.Prefix(p), nil)
	}
	steps := func(q Seq, main bool) error {
		if len(q.RTG) != len(q.Obs) || len(q.Actions) < len(q.Obs)-1 || len(q.Actions) > len(q.Obs) {
			return fmt.Errorf("dt: %d observations, %d returns-to-go and %d actions", len(q.Obs), len(q.RTG), len(q.Actions))
		}
		for t := range q.Obs {
			target := int32(-1)
			if t < len(q.Actions) {
				a := q.Actions[t]
				if a < 0 || a >= v.Actions {
					return fmt.Errorf("dt: step %d action %d out of [0, %d)", t, a, v.Actions)
				}
				target = v.Action(a)
			}
			if main {
				at := len(ids) + 1 // the OBS after its RTG token
				if v.Steps {
					at = len(ids)
				}
				obsAt, targets = append(obsAt, at), append(targets, target)
			}
			if v.Steps {
				prev := -1
				if t > 0 {
					prev = q.Actions[t-1]
				}
				add(v.Step(q.RTG[t], prev), q.Obs[t])
				continue
			}
			add(v.RTG(q.RTG[t]), nil)
			add(OBS, q.Obs[t])
			if target >= 0 {
				add(target, nil)
			}
		}
		return nil
	}
	if s.Prompt != nil {
		if err := steps(*s.Prompt, false); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("prompt: %w", err)
		}
		add(SEP, nil)
	}
	if err := steps(s, true); err != nil {
		return nil, nil, nil, nil, err
	}
	return ids, obs, obsAt, targets, nil
}

// Batch is a packed batch of width T: the lm inputs (tokens, positions, key_mask), the action
// targets at the trajectories' OBS positions (targets, target_mask) and the patches of the OBS
// positions (patches [B,T,Pixels], patch_mask). Last[b] is row b's last OBS position (where an
// acting agent reads its next action).
type Batch struct {
	B, T                int
	Tokens, Positions   []int32
	Targets             []int32
	KeyMask, TargetMask []float32
	Patches, PatchMask  []float32
	Last                []int
	// AuxTargets and AuxMask are the auxiliary classes at the trajectories' OBS positions (Vocab.Aux).
	AuxTargets []int32
	AuxMask    []float32
	pixels     int
	aux        bool
}

// Pack packs sequences into a batch whose width is the longest sequence rounded up to a multiple of
// 32 (few compiled shapes) and at most context; a longer sequence, an observation longer than the
// patch's pixels (less the prefix multi-hot with PrefixInObs) or a bad token is an error naming the
// sequence.
func (v Vocab) Pack(seqs []Seq, context, pixels int) (*Batch, error) {
	type row struct {
		ids     []int32
		obs     [][]float32
		obsAt   []int
		targets []int32
	}
	rows := make([]row, len(seqs))
	longest := 1
	for i, s := range seqs {
		ids, obs, at, targets, err := v.tokens(s)
		if err != nil {
			return nil, fmt.Errorf("sequence %d: %w", i, err)
		}
		if len(ids) > context {
			return nil, fmt.Errorf("dt: sequence %d has %d tokens, the context holds %d", i, len(ids), context)
		}
		rows[i] = row{ids, obs, at, targets}
		longest = max(longest, len(ids))
	}
	t := min(context, (longest+31)/32*32)
	b := len(seqs)
	p := &Batch{B: b, T: t, Tokens: make([]int32, b*t), Positions: make([]int32, b*t), Targets: make([]int32, b*t),
		KeyMask: make([]float32, b*t), TargetMask: make([]float32, b*t), Patches: make([]float32, b*t*pixels),
		PatchMask: make([]float32, b*t), Last: make([]int, b), pixels: pixels, aux: v.Aux}
	obsWidth := pixels
	if v.PrefixInObs {
		obsWidth -= v.Prefixes
	}
	if v.Aux {
		p.AuxTargets, p.AuxMask = make([]int32, b*t), make([]float32, b*t)
	}
	for i, r := range rows {
		for j := 0; j < t; j++ {
			p.Positions[i*t+j] = int32(j)
		}
		for j, id := range r.ids {
			k := i*t + j
			p.Tokens[k], p.KeyMask[k] = id, 1
			if o := r.obs[j]; o != nil {
				if len(o) > obsWidth {
					return nil, fmt.Errorf("dt: sequence %d position %d: observation of %d values, the model reads %d", i, j, len(o), obsWidth)
				}
				copy(p.Patches[k*pixels:], o) // shorter observations (another embodiment) are zero-padded
				if v.PrefixInObs {
					for _, q := range seqs[i].Prefix {
						p.Patches[k*pixels+obsWidth+q] = 1
					}
				}
				p.PatchMask[k] = 1
			}
		}
		if v.Aux && seqs[i].Aux != nil && len(seqs[i].Aux) != len(r.obsAt) {
			return nil, fmt.Errorf("dt: sequence %d has %d auxiliary targets for %d steps", i, len(seqs[i].Aux), len(r.obsAt))
		}
		for n, j := range r.obsAt {
			if tok := r.targets[n]; tok >= 0 { // the action taken after this observation
				p.Targets[i*t+j], p.TargetMask[i*t+j] = tok, 1
			}
			if v.Aux && seqs[i].Aux != nil && seqs[i].Aux[n] >= 0 {
				p.AuxTargets[i*t+j], p.AuxMask[i*t+j] = int32(seqs[i].Aux[n]), 1
			}
		}
		if len(r.obsAt) > 0 {
			p.Last[i] = r.obsAt[len(r.obsAt)-1]
		}
	}
	return p, nil
}

// Inputs returns the batch as the loss reads it (lm.InputPatches: patches after the loss's own).
func (p *Batch) Inputs() lm.Inputs {
	var in lm.Inputs
	in.Add("tokens", tensors.FromFlatDataAndDimensions(p.Tokens, p.B, p.T))
	in.Add("positions", tensors.FromFlatDataAndDimensions(p.Positions, p.B, p.T))
	in.Add("key_mask", tensors.FromFlatDataAndDimensions(p.KeyMask, p.B, p.T))
	in.Add("targets", tensors.FromFlatDataAndDimensions(p.Targets, p.B, p.T))
	in.Add("target_mask", tensors.FromFlatDataAndDimensions(p.TargetMask, p.B, p.T))
	if p.aux {
		in.Add("aux_targets", tensors.FromFlatDataAndDimensions(p.AuxTargets, p.B, p.T))
		in.Add("aux_mask", tensors.FromFlatDataAndDimensions(p.AuxMask, p.B, p.T))
	}
	in.Add("patches", tensors.FromFlatDataAndDimensions(p.Patches, p.B, p.T, p.pixels))
	in.Add("patch_mask", tensors.FromFlatDataAndDimensions(p.PatchMask, p.B, p.T))
	return in
}
