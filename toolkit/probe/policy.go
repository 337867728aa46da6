package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/datasets/prefs"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/repo"
)

// ProvenanceFormat versions the provenance a saved policy carries; Open rejects any other.
const ProvenanceFormat = "paperlab-policy/1"

// Provenance is what a saved policy's manifest records (under meta.extra) about how it was made:
// which experiment, method, seed, scale, engine and commit, the task's generator configuration, every
// data draw in the order the experiment made it (enough to rebuild its training and held-out data
// exactly), and the evaluation protocol whose recorded metrics a probe of the held-out set reproduces.
type Provenance struct {
	Format     string `json:"format"`
	Experiment string `json:"experiment"`
	Method     string `json:"method"`
	Seed       uint64 `json:"seed"`
	Scale      string `json:"scale"`
	Commit     string `json:"commit"`
	Engine     string `json:"engine"`
	// Task is "arith" (datasets/arith, configuration Arith), "arith_tagged" (the same problems in the
	// chain-of-step format, arith.TaggedCompletion) or "prefs" (datasets/prefs, Prefs).
	Task  string        `json:"task"`
	Arith *arith.Config `json:"arith,omitempty"`
	Prefs *prefs.Config `json:"prefs,omitempty"`
	// Alphabet is the tokenizer's (also in the LM part of the manifest; they must agree).
	Alphabet string `json:"alphabet"`
	// Data lists the draws; one of them is named "held_out".
	Data []Draw `json:"data"`
	// Eval is the experiment's final evaluation of this policy.
	Eval Protocol `json:"eval"`
	// Training is the experiment's configuration of this method (for the record; not read back).
	Training any `json:"training,omitempty"`
}

// Draw is one data draw of an experiment.
type Draw struct {
	Name string `json:"name"`
	// Kind: "arith" (lmtask.Generate(tok, Arith, Seed, N, prompts of the Exclude draws)),
	// "prefs_train" (Prefs.TrainPrompts(Seed, N)) or "prefs_eval" (Prefs.EvalPrompts(Seed, N)).
	Kind    string   `json:"kind"`
	Seed    uint64   `json:"seed"`
	N       int      `json:"n"`
	Exclude []string `json:"exclude,omitempty"`
	// Noise > 0: the demonstrations of this draw slip each step with this probability
	// (lmtask.Set.NoisyExamples(Noise, NoiseSeed); for task arith_tagged,
	// Problem.NoisyTaggedCompletion with rand.NewPCG(NoiseSeed, NoiseStream), one draw per problem).
	Noise       float64 `json:"noise,omitempty"`
	NoiseSeed   uint64  `json:"noise_seed,omitempty"`
	NoiseStream uint64  `json:"noise_stream,omitempty"`
	// Carry > 0 (task arith_tagged): the demonstrations also carry systematic carry/borrow slips
	// with this probability (Problem.SlippedTaggedCompletion with arith.Slips{Uniform: Noise,
	// Carry: Carry}, the same generator).
	Carry float64 `json:"carry,omitempty"`
	// Distract > 0: the demonstrations also write a distractor on shown multiplications by
	// DistractOperands with this probability (arith.Slips; lmtask.Set.SlippedExamples with
	// arith.Slips{Uniform: Noise, Distract: Distract, DistractOperands: DistractOperands}, NoiseSeed).
	Distract         float64 `json:"distract,omitempty"`
	DistractOperands []int   `json:"distract_operands,omitempty"`
	// Arith, when set, is this draw's task, in place of the provenance's (a run whose warm start
	// and RL data come from different tasks).
	Arith *arith.Config `json:"arith,omitempty"`
	// Responses: the demonstrations of a prefs_train draw are Prefs.Response draws from
	// rand.NewPCG(ResponseSeed, ResponseStream), one per prompt in order.
	ResponseSeed   uint64 `json:"response_seed,omitempty"`
	ResponseStream uint64 `json:"response_stream,omitempty"`
	// File is a data file the experiment wrote from this draw (e.g. preference pairs), relative to
	// the experiment's output folder.
	File string `json:"file,omitempty"`
}

// Protocol is how the experiment evaluated the policy at the end: Samples completions of every
// held-out prompt in one lm.Model.Sample call (prompts repeated round by round, lmtask.Set.Repeat)
// with Seed, Temperature and MaxNew; ECE over Bins bins of exp(lpm); AUC averaged over rounds.
type Protocol struct {
	Samples     int     `json:"samples"`
	Seed        uint64  `json:"seed"`
	Temperature float64 `json:"temperature"`
	MaxNew      int     `json:"max_new"`
	Bins        int     `json:"bins"`
}

// Validate names the first missing or inconsistent field.
func (p *Provenance) Validate() error {
	switch {
	case p.Format != ProvenanceFormat:
		return fmt.Errorf("provenance format %q, this version reads %q", p.Format, ProvenanceFormat)
	case p.Experiment == "" || p.Method == "":
		return errors.New("provenance: field experiment or method: empty")
	case (p.Task == "arith" || p.Task == "arith_tagged") && p.Arith == nil:
		return fmt.Errorf("provenance: task %s without field arith", p.Task)
	case p.Task == "prefs" && p.Prefs == nil:
		return errors.New("provenance: task prefs without field prefs")
	case p.Task != "arith" && p.Task != "arith_tagged" && p.Task != "prefs":
		return fmt.Errorf("provenance: field task = %q, want arith, arith_tagged or prefs", p.Task)
	case p.Eval.MaxNew < 1:
		return fmt.Errorf("provenance: field eval.max_new = %d", p.Eval.MaxNew)
	}
	if _, err := p.draw("held_out"); err != nil {
		return err
	}
	return nil
}

func (p *Provenance) draw(name string) (Draw, error) {
	for _, d := range p.Data {
		if d.Name == name {
			return d, nil
		}
	}
	return Draw{}, fmt.Errorf("provenance: no data draw named %q", name)
}

// Save writes a policy with its provenance to dir, atomically (lm.SaveCheckpoint; tr may be nil:
// the weights alone, ~0.4 MB for configuration R).
func Save(dir string, m *lm.Model, tr *lm.Trainer, prov Provenance) error {
	prov.Format = ProvenanceFormat
	if m.Tok != nil {
		prov.Alphabet = m.Tok.Alphabet
	}
	if err := prov.Validate(); err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	return lm.SaveCheckpoint(dir, m, tr, prov)
}

// Policy is a saved policy opened for probing.
type Policy struct {
	Dir   string
	Model *lm.Model
	Prov  Provenance
	// Label is "<experiment>/<method> seed <seed>".
	Label string
}

// Close releases the model's engine memory.
func (p *Policy) Close() { p.Model.Close() }

// resolve returns a relative path that does not exist from the working directory relative to the
// repository root instead (notebooks run in a folder of their own), else the path unchanged.
func resolve(dir string) string {
	if _, err := os.Stat(dir); err == nil || filepath.IsAbs(dir) {
		return dir
	}
	if root, err := repo.Root(); err == nil {
		if _, err := os.Stat(filepath.Join(root, dir)); err == nil {
			return filepath.Join(root, dir)
		}
	}
	return dir
}

// Open loads the policy saved in dir (by Save); a relative dir may also be relative to the repository
// root. A folder that is not a checkpoint, a manifest of
// another format, or a checkpoint saved without provenance is an error naming dir's manifest.
func Open(dir string) (*Policy, error) {
	dir = resolve(dir)
	mf := filepath.Join(dir, "manifest.json")
	if _, err := os.Stat(mf); err != nil {
		return nil, fmt.Errorf("%s is not a checkpoint (no manifest.json)", dir)
	}
	ck, err := lm.LoadCheckpoint(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mf, err)
	}
	var prov Provenance
	if len(ck.Extra) == 0 || json.Unmarshal(ck.Extra, &prov) != nil || prov.Format == "" {
		ck.Model.Close()
		return nil, fmt.Errorf("%s: no provenance (saved before %s; run the experiment again to save its policies)", mf, ProvenanceFormat)
	}
	if err := prov.Validate(); err != nil {
		ck.Model.Close()
		return nil, fmt.Errorf("%s: %w", mf, err)
	}
	if ck.Model.Tok == nil || ck.Model.Tok.Alphabet != prov.Alphabet {
		ck.Model.Close()
		return nil, fmt.Errorf("%s: provenance alphabet %q differs from the tokenizer's", mf, prov.Alphabet)
	}
	return &Policy{Dir: dir, Model: ck.Model, Prov: prov, Label: fmt.Sprintf("%s/%s seed %d", prov.Experiment, prov.Method, prov.Seed)}, nil
}

// ArithSet rebuilds the arith draw name (with the draws it excludes, recursively) exactly as the
// experiment drew it.
func (p *Provenance) ArithSet(name string) (*lmtask.Set, error) {
	if p.Task != "arith" && p.Task != "arith_tagged" {
		return nil, fmt.Errorf("provenance: draw %q: task is %s, not arith", name, p.Task)
	}
	return p.arithSet(name, map[string]bool{})
}

func (p *Provenance) arithSet(name string, visiting map[string]bool) (*lmtask.Set, error) {
	if visiting[name] {
		return nil, fmt.Errorf("provenance: draw %q excludes itself", name)
	}
	visiting[name] = true
	d, err := p.draw(name)
	if err != nil {
		return nil, err
	}
	if d.Kind != "arith" {
		return nil, fmt.Errorf("provenance: draw %q has kind %q, not arith", name, d.Kind)
	}
	var exclude map[string]bool
	for _, e := range d.Exclude {
		s, err := p.arithSet(e, visiting)
		if err != nil {
			return nil, err
		}
		if exclude == nil {
			exclude = map[string]bool{}
		}
		for k := range s.PromptSet() {
			exclude[k] = true
		}
	}
	tok, err := lm.NewTokenizer(p.Alphabet)
	if err != nil {
		return nil, err
	}
	task := p.Arith
	if d.Arith != nil {
		task = d.Arith
	}
	if task == nil {
		return nil, fmt.Errorf("provenance: draw %q has no arith task (neither its own nor the provenance's)", name)
	}
	return lmtask.Generate(tok, *task, d.Seed, d.N, exclude)
}

// ArithExamples rebuilds the demonstrations of an arith draw: gold completions, or noisy ones when
// the draw has Noise.
func (p *Provenance) ArithExamples(name string) ([]lm.Example, error) {
	s, err := p.ArithSet(name)
	if err != nil {
		return nil, err
	}
	d, _ := p.draw(name)
	if p.Task == "arith_tagged" {
		r := rand.New(rand.NewPCG(d.NoiseSeed, d.NoiseStream))
		return s.TextExamples(func(pr arith.Problem) string {
			if d.Noise > 0 || d.Carry > 0 {
				return pr.SlippedTaggedCompletion(r, arith.Slips{Uniform: d.Noise, Carry: d.Carry})
			}
			return pr.TaggedCompletion()
		})
	}
	if d.Distract > 0 {
		return s.SlippedExamples(arith.Slips{Uniform: d.Noise, Distract: d.Distract, DistractOperands: d.DistractOperands}, d.NoiseSeed)
	}
	if d.Noise > 0 {
		return s.NoisyExamples(d.Noise, d.NoiseSeed)
	}
	return s.Examples(), nil
}

// PrefsPrompts rebuilds the prompts of a prefs draw.
func (p *Provenance) PrefsPrompts(name string) ([]string, error) {
	d, err := p.draw(name)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Task != "prefs":
		return nil, fmt.Errorf("provenance: draw %q: task is %s, not prefs", name, p.Task)
	case d.Kind == "prefs_train":
		return p.Prefs.TrainPrompts(d.Seed, d.N)
	case d.Kind == "prefs_eval":
		return p.Prefs.EvalPrompts(d.Seed, d.N)
	}
	return nil, fmt.Errorf("provenance: draw %q has kind %q, not prefs_train or prefs_eval", name, d.Kind)
}

// PrefsResponses rebuilds the demonstration responses of a prefs_train draw, one per prompt.
func (p *Provenance) PrefsResponses(name string) ([]string, error) {
	prompts, err := p.PrefsPrompts(name)
	if err != nil {
		return nil, err
	}
	d, _ := p.draw(name)
	r := rand.New(rand.NewPCG(d.ResponseSeed, d.ResponseStream))
	out := make([]string, len(prompts))
	for i, x := range prompts {
		out[i] = p.Prefs.Response(r, x)
	}
	return out, nil
}
