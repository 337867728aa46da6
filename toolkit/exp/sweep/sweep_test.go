package sweep

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/exp"
	_ "github.com/paperlab/paperlab/toolkit/exp/tour"
)

// TestMain doubles as the paperlab CLI for the child processes of Local (PAPERLAB_SWEEP_CHILD=1):
// `<experiment> -scale S -seeds a,b -out DIR -save none`, run through exp.Execute as the CLI does.
func TestMain(m *testing.M) {
	if os.Getenv("PAPERLAB_SWEEP_CHILD") == "1" {
		fs := flag.NewFlagSet("child", flag.ExitOnError)
		scale, seeds, out := fs.String("scale", "smoke", ""), fs.String("seeds", "", ""), fs.String("out", "", "")
		fs.String("save", "", "")
		_ = fs.Parse(os.Args[2:])
		e, err := exp.Lookup(os.Args[1])
		if err == nil {
			var n int
			var set []uint64
			if n, set, err = exp.ParseSeeds(*seeds); err == nil {
				_, err = exp.Execute(e, exp.Options{Scale: exp.Scale(*scale), Seeds: n, SeedSet: set, Out: *out, Log: io.Discard})
			}
		}
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Local runs three one-seed shards of tour as child processes two at a time and merges them; a
// second run skips every finished shard (resume); a failing child is reported with its log.
func TestLocal(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PAPERLAB_SWEEP_CHILD", "1")
	dir := t.TempDir()
	p := Plan{Experiment: "tour", Scale: exp.Smoke, Seeds: []uint64{1, 2, 3}, ShardSize: 1, Out: dir}
	var log strings.Builder
	res, err := Local(context.Background(), p, bin, 2, 0, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !slices.Equal(res.Seeds, []uint64{1, 2, 3}) || strings.Count(log.String(), "shards done") != 3 {
		t.Fatalf("seeds %v, log:\n%s", res.Seeds, log.String())
	}
	if _, err := exp.Load(dir); err != nil {
		t.Fatalf("merged metrics.json: %v", err)
	}
	log.Reset()
	if _, err := Local(context.Background(), p, bin, 2, 0, &log); err != nil || strings.Count(log.String(), "already done") != 3 {
		t.Fatalf("resume: %v\n%s", err, log.String())
	}
	bad := Plan{Experiment: "no-such-experiment", Scale: exp.Smoke, Seeds: []uint64{1}, ShardSize: 1, Out: filepath.Join(dir, "bad")}
	if _, err := Local(context.Background(), bad, bin, 1, 1, &log); err == nil || !strings.Contains(err.Error(), "shard-0001.log") {
		t.Fatalf("failing shard: %v", err)
	}
}

// The Slurm script: one array task per shard with its seeds and directory, sbatch options passed
// through, logs under DIR/logs; shards cut in order.
func TestSlurmScript(t *testing.T) {
	p := Plan{Experiment: "capo", Scale: exp.Default, Seeds: []uint64{1, 2, 3, 4, 5}, ShardSize: 2, Out: "/scratch/capo"}
	sh, err := p.Shards()
	if err != nil || len(sh) != 3 || !slices.Equal(sh[2].Seeds, []uint64{5}) || sh[1].Dir != "/scratch/capo/shard-0002" {
		t.Fatalf("shards %+v (%v)", sh, err)
	}
	s, err := SlurmScript(p, "/opt/paperlab", SlurmOptions{Partition: "gpu", Time: "01:00:00", Mem: "8G", GPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=1-3", "#SBATCH --partition=gpu", "#SBATCH --time=01:00:00", "#SBATCH --mem=8G", "#SBATCH --gpus=1",
		"#SBATCH --output=/scratch/capo/logs/shard-%4a.log", "2) SEEDS=3,4; OUT=/scratch/capo/shard-0002 ;;",
		`exec /opt/paperlab capo -scale default -seeds "$SEEDS" -out "$OUT" -save none`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if _, err := (Plan{Experiment: "capo", Seeds: nil, ShardSize: 1, Out: "x"}).Shards(); err == nil {
		t.Fatal("a plan without seeds was cut")
	}
}
