package report

import "testing"

// TestRegistry holds every report to one complete entry: a name once, what
// it shows, how it runs, and a title when the console's History page lists
// it. A report added with only part of it (a description and no run, a
// chart and no title) fails here; charts_test holds Chart to what
// analytics/charts draws.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for i, r := range Reports {
		switch {
		case r.Name == "":
			t.Errorf("report %d has no name", i)
		case seen[r.Name]:
			t.Errorf("report %s registered twice", r.Name)
		}
		seen[r.Name] = true
		if r.Describe == "" {
			t.Errorf("report %s: no description for ste report --help", r.Name)
		}
		if r.run == nil || r.empty == nil {
			t.Errorf("report %s: registered without its function", r.Name)
		}
		if r.Chart != (r.Title != "") {
			t.Errorf("report %s: Chart %v but History title %q (the History page lists exactly the charted reports, each titled)", r.Name, r.Chart, r.Title)
		}
		if got, ok := Lookup(r.Name); !ok || got.Name != r.Name {
			t.Errorf("Lookup(%q) = %v, %v", r.Name, got.Name, ok)
		}
	}
	if len(Names) != len(Reports) {
		t.Errorf("Names has %d, the registry %d", len(Names), len(Reports))
	}
	if _, ok := Lookup("nonesuch"); ok {
		t.Error("Lookup found an unregistered report")
	}
}
