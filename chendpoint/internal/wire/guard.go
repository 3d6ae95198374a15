package wire

import (
	"regexp"
	"strings"
)

// The endpoint runs chDB, i.e. clickhouse-local: the engine runs as the user
// running ste, with no user_files_path confinement and no access control. A
// query that names a table function, table engine, database engine or
// dictionary source reaching outside the data directory (file, url, remote,
// s3, executable, ...) or the client-side INFILE/OUTFILE clauses could read
// or write any file that user can, or exfiltrate data over the network. STE
// itself never needs any of them (its inserts come as data in the request
// body, which the endpoint spools and loads with an INFILE clause it writes
// itself, after this check), so they are refused for every query: Guard
// runs on the text clients send, before the endpoint's own rewriting.
//
// It works on the lexer's tokens, so a name inside a string literal or a
// comment does not count and spacing or comments between a name and its
// parenthesis do not hide it. Where the lexer could disagree with
// ClickHouse's own — heredoc strings ($$...$$), which it does not know, and
// quoted names with escapes — the query is refused rather than guessed at.

// deniedCalls are names refused when followed by "(" (a table function, a
// scalar function reading files, an engine or dictionary source with
// arguments) or when named as an ENGINE (case-insensitive).
var deniedCalls = map[string]bool{}

// deniedPrefixes: families of table functions and engines (icebergS3,
// deltaLakeAzure, azureBlobStorageCluster, ...).
var deniedPrefixes = []string{"iceberg", "deltalake", "hudi", "paimon", "azureblob", "azurequeue", "s3", "hdfs", "remote", "filelog", "executable"}

// deniedWords are refused wherever they appear as a bare word: the
// client-side file clauses. (Settings are an allow-list: settings.go.)
var deniedWords = map[string]bool{"infile": true, "outfile": true}

// deniedStatements are refused as a statement's first word: they touch the
// file system or the process (ATTACH ... FROM 'path', BACKUP/RESTORE to
// disks and files, SYSTEM).
var deniedStatements = map[string]bool{"attach": true, "backup": true, "restore": true, "system": true}

func init() {
	for _, n := range strings.Fields(`
		file filecluster url urlcluster remote remotesecure cluster clusterallreplicas
		s3 s3cluster gcs oss cosn hdfs hdfscluster hive
		mysql postgresql postgres mongodb mongo redis sqlite odbc jdbc
		executable executablepool executable_pool arrowflight arrow_flight ytsaurus
		kafka rabbitmq nats distributed embeddedrocksdb materializedpostgresql materializedmysql
		filesystem backup disk datalakecatalog
		http clickhouse cassandra yamlregexptree regexptree
		catboostevaluate modelevaluate`) {
		deniedCalls[n] = true
	}
}

var heredoc = regexp.MustCompile(`\$[A-Za-z0-9_]*\$`)

// Guard returns an ACCESS_DENIED exception when q uses what the endpoint
// refuses (see above), nil otherwise.
func Guard(q string) *Exception {
	if heredoc.MatchString(q) {
		return Errorf(CodeAccessDenied, "Heredoc strings ($$...$$) are not allowed by the embedded endpoint")
	}
	toks := lex(q)
	first := true
	for i, t := range toks {
		if t.kind == tokPunct && q[t.start] == ';' {
			first = true
			continue
		}
		name := ""
		switch t.kind {
		case tokWord:
			name = strings.ToLower(t.text(q))
		case tokQuoted:
			// A quoted name: ClickHouse resolves escapes in it, so one with a
			// backslash could spell anything; refuse it where it would be a
			// call or an engine.
			raw := t.text(q)
			if len(raw) >= 2 {
				name = strings.ToLower(raw[1 : len(raw)-1])
			}
			if strings.Contains(name, `\`) && (calledAt(q, toks, i) || engineAt(q, toks, i)) {
				return Errorf(CodeAccessDenied, "Quoted function or engine names with escapes are not allowed by the embedded endpoint")
			}
		default:
			first = false
			continue
		}
		if first && t.kind == tokWord && deniedStatements[name] {
			return denied(strings.ToUpper(name) + " statements")
		}
		if first && t.kind == tokWord && name == "set" {
			if ex := guardSet(q, toks, i); ex != nil {
				return ex
			}
		}
		first = false
		if t.kind == tokWord && (name == "settings" || name == "setting") && i+1 < len(toks) {
			next := toks[i+1]
			var ex *Exception
			if next.kind == tokPunct && q[next.start] == '(' {
				ex = guardSettingsClause(q, toks, i+2, next.depth+1) // a dictionary's or a column's SETTINGS(...)
			} else {
				ex = guardSettingsClause(q, toks, i+1, t.depth)
			}
			if ex != nil {
				return ex
			}
		}
		if t.kind == tokWord && deniedWords[name] {
			return denied(strings.ToUpper(name))
		}
		if (calledAt(q, toks, i) || engineAt(q, toks, i)) && deniedName(name) {
			return denied(t.text(q) + "()")
		}
	}
	return nil
}

func denied(what string) *Exception {
	return Errorf(CodeAccessDenied, "%s is not allowed by the embedded endpoint: it would reach files or hosts outside the analytics store", what)
}

func deniedName(name string) bool {
	if deniedCalls[name] {
		return true
	}
	for _, p := range deniedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// calledAt: the token is followed by "(".
func calledAt(q string, toks []token, i int) bool {
	return i+1 < len(toks) && toks[i+1].kind == tokPunct && q[toks[i+1].start] == '('
}

// engineAt: the token follows ENGINE or ENGINE = (a table or database engine
// named without arguments, such as ENGINE = Filesystem).
func engineAt(q string, toks []token, i int) bool {
	j := i - 1
	if j >= 0 && toks[j].kind == tokPunct && q[toks[j].start] == '=' {
		j--
	}
	return j >= 0 && toks[j].is(q, "ENGINE")
}
