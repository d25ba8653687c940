package genetic

import "testing"

func TestDefaults(t *testing.T) {
	got := Settings{}.withDefaults()
	want := Settings{Population: 20, Islands: 2, Tournament: 3, Crossover: 0.9, Mutation: 0.1, Elite: 2, Local: 10, LocalBest: 3}
	if !(got.Population == want.Population && got.Islands == want.Islands && got.Tournament == want.Tournament && got.Crossover == want.Crossover &&
		got.Mutation == want.Mutation && got.Elite == want.Elite && got.Local == want.Local && got.LocalBest == want.LocalBest) {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	got = Settings{Elite: -1, Crossover: -1, Mutation: -1, Population: 1, Local: -1}.withDefaults()
	if got.Elite != 0 || got.Crossover >= 0 || got.Mutation >= 0 || got.Local != 0 {
		t.Errorf("negative settings %+v", got)
	}
}
