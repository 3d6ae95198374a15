// Package monitoring is STE's Grafana dashboards and Prometheus alert rules
// (the files beside this one, shipped by deploy/compose.yaml and the Helm
// chart) read back for their checks: every PromQL expression with the
// metric names it uses, and every ClickHouse panel's SQL with Grafana's
// macros expanded as the ClickHouse data source would.
package monitoring

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

//go:embed grafana/dashboards/*.json prometheus/alerts.yaml
var files embed.FS

// Query is one expression or statement and where it is.
type Query struct {
	Where string // file, panel and target
	Text  string
}

// The data source types of the dashboards' targets.
const (
	Prometheus = "prometheus"
	ClickHouse = "grafana-clickhouse-datasource"
)

type dashboard struct {
	Title      string  `json:"title"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []variable `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         int        `json:"id"`
	Title      string     `json:"title"`
	Type       string     `json:"type"`
	Datasource datasource `json:"datasource"`
	Targets    []target   `json:"targets"`
	Panels     []panel    `json:"panels"` // collapsed rows
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type target struct {
	RefID      string     `json:"refId"`
	Datasource datasource `json:"datasource"`
	Expr       string     `json:"expr"`   // Prometheus
	RawSQL     string     `json:"rawSql"` // ClickHouse
}

type variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Datasource datasource      `json:"datasource"`
	Query      json.RawMessage `json:"query"`
}

// Dashboards lists the dashboard files.
// ConsoleGatewayDashboard is the dashboard of the console's and the
// gateway's own metrics (the others are the processors' and analytics').
const ConsoleGatewayDashboard = "grafana/dashboards/ste-console-gateway.json"

func Dashboards() ([]string, error) {
	names, err := files.ReadDir("grafana/dashboards")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		out = append(out, path.Join("grafana/dashboards", n.Name()))
	}
	return out, nil
}

// Queries returns the queries of every dashboard for data source type ds:
// panel targets and query variables.
func Queries(ds string) ([]Query, error) {
	names, err := Dashboards()
	if err != nil {
		return nil, err
	}
	var out []Query
	for _, name := range names {
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var d dashboard
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var walk func(ps []panel)
		walk = func(ps []panel) {
			for _, p := range ps {
				for _, t := range p.Targets {
					dsType := t.Datasource.Type
					if dsType == "" {
						dsType = p.Datasource.Type
					}
					text := t.Expr
					if ds == ClickHouse {
						text = t.RawSQL
					}
					if dsType == ds {
						out = append(out, Query{Where: fmt.Sprintf("%s panel %d %q target %s", name, p.ID, p.Title, t.RefID), Text: text})
					}
				}
				walk(p.Panels)
			}
		}
		walk(d.Panels)
		for _, v := range d.Templating.List {
			if v.Type != "query" || v.Datasource.Type != ds {
				continue
			}
			q, err := variableQuery(v.Query)
			if err != nil {
				return nil, fmt.Errorf("%s variable %s: %w", name, v.Name, err)
			}
			out = append(out, Query{Where: fmt.Sprintf("%s variable %s", name, v.Name), Text: q})
		}
	}
	return out, nil
}

// variableQuery is a variable's query: a string, or {"query": "..."}.
func variableQuery(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var o struct {
		Query string `json:"query"`
	}
	err := json.Unmarshal(raw, &o)
	return o.Query, err
}

// labelValuesRE is Grafana's label_values(metric, label) variable query:
// not PromQL, but it names a metric.
var labelValuesRE = regexp.MustCompile(`^label_values\(\s*([^,]+?)\s*,\s*\w+\s*\)$`)

// PromQL returns every Prometheus expression: the dashboards' (a
// label_values variable as its metric selector) and the alert rules'.
func PromQL() ([]Query, error) {
	qs, err := Queries(Prometheus)
	if err != nil {
		return nil, err
	}
	for i, q := range qs {
		if m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(q.Text)); m != nil {
			qs[i].Text = m[1]
		}
	}
	rules, err := AlertRules()
	if err != nil {
		return nil, err
	}
	return append(qs, rules...), nil
}

// AlertRules returns the alert rules' expressions.
func AlertRules() ([]Query, error) {
	b, err := files.ReadFile("prometheus/alerts.yaml")
	if err != nil {
		return nil, err
	}
	var rf struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &rf); err != nil {
		return nil, fmt.Errorf("alerts.yaml: %w", err)
	}
	var out []Query
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			out = append(out, Query{Where: "prometheus/alerts.yaml alert " + r.Alert, Text: r.Expr})
		}
	}
	return out, nil
}

// PromQL's words that are not metric names where they stand alone.
var promKeywords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true,
	"group_right": true, "bool": true, "and": true, "or": true, "unless": true, "offset": true, "inf": true, "nan": true,
	"atan2": true}

var (
	stringRE   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	braceRE    = regexp.MustCompile(`\{[^{}]*\}`)
	rangeRE    = regexp.MustCompile(`\[[^\[\]]*\]`)
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	variableRE = regexp.MustCompile(`\$\{[^}]*\}|\$\w+`)
	numberRE   = regexp.MustCompile(`\b\d+(?:\.\d+)?(?:e[+-]?\d+)?(?:ms|[smhdwy])?\b`)
	identRE    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
)

// MetricNames are the metric names a PromQL expression selects: what is
// left once strings, label matchers, ranges, grouping labels, Grafana
// variables and numbers are removed, that is not a function, an
// aggregation or a keyword. Histogram series keep their suffix
// (_bucket, _sum, _count), as /metrics writes them.
func MetricNames(expr string) []string {
	s := stringRE.ReplaceAllString(expr, " ")
	s = variableRE.ReplaceAllString(s, " ")
	for _, re := range []*regexp.Regexp{braceRE, rangeRE, groupingRE} {
		for prev := ""; prev != s; {
			prev, s = s, re.ReplaceAllString(s, " ")
		}
	}
	s = numberRE.ReplaceAllString(s, " ")
	seen := map[string]bool{}
	for _, loc := range identRE.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if promKeywords[strings.ToLower(name)] {
			continue
		}
		if rest := strings.TrimLeft(s[loc[1]:], " \t\n"); strings.HasPrefix(rest, "(") {
			continue // a function or an aggregation
		}
		seen[name] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ExposedNames are the series names in a Prometheus text exposition
// (what /metrics answers).
func ExposedNames(exposition string) map[string]bool {
	names := map[string]bool{}
	for _, line := range strings.Split(exposition, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			names[line[:i]] = true
		}
	}
	return names
}

// Range is the dashboard time range and variables a ClickHouse query is
// expanded for.
type Range struct {
	From, To time.Time
	Interval time.Duration     // $__interval_s
	Vars     map[string]string // dashboard variables: namespace, window
}

var (
	timeFilterRE = regexp.MustCompile(`\$__timeFilter\(\s*(\w+)\s*\)`)
	leftoverRE   = regexp.MustCompile(`\$\{?\w+\}?`)
)

// ExpandClickHouse expands the ClickHouse data source's macros used by the
// dashboards — $__timeFilter(col), $__fromTime, $__toTime, $__interval_s —
// and the dashboard variables ($name and ${name}) as Grafana does. A macro
// or variable it does not know is an error, not left for ClickHouse to
// choke on.
func ExpandClickHouse(sql string, r Range) (string, error) {
	from := fmt.Sprintf("toDateTime(%d)", r.From.Unix())
	to := fmt.Sprintf("toDateTime(%d)", r.To.Unix())
	sql = timeFilterRE.ReplaceAllString(sql, "$1 >= "+from+" AND $1 <= "+to)
	sql = strings.NewReplacer("$__fromTime", from, "$__toTime", to,
		"$__interval_s", strconv.Itoa(max(1, int(r.Interval.Seconds())))).Replace(sql)
	names := make([]string, 0, len(r.Vars))
	for k := range r.Vars {
		names = append(names, k)
	}
	// Longest first: $window must not eat part of $windowed.
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	for _, k := range names {
		sql = strings.ReplaceAll(sql, "${"+k+"}", r.Vars[k])
		sql = strings.ReplaceAll(sql, "$"+k, r.Vars[k])
	}
	if m := leftoverRE.FindString(sql); m != "" {
		return "", fmt.Errorf("unknown macro or variable %s", m)
	}
	return sql, nil
}
