package wire

import (
	"strings"
	"sync/atomic"
)

// Settings are an allow-list. The engine is clickhouse-local (chDB): several
// hundred settings, and new ones every release, some of which name a file
// to write (output_format_schema), a file to read (format_schema,
// format_template_row), a URL to fetch (format_avro_schema_registry_url) or
// a disk (the MergeTree setting disk = disk(type = local, path = ...)); in
// clickhouse-local none of them is confined to a directory. A deny-list
// keeps missing the next one, so the endpoint accepts only the settings
// below — what STE and ClickHouse's official clients (clickhouse-go/v2,
// clickhouse-connect, the JDBC driver jdbc-v2, @clickhouse/client) send, as
// seen from chendpoint/clientconformance, plus the limits an analyst sets
// on a query — and refuses every other one, with the same rule wherever a
// setting can be named:
//
//   - a URL parameter (ParseParams; the interface's own parameters —
//     database, query_id, session_id, compress, ... — are not settings);
//   - a SET statement (SET name = value, ...; any other SET form is refused);
//   - a SETTINGS clause anywhere in a statement (SELECT, INSERT, CREATE
//     TABLE's MergeTree settings, CREATE SETTINGS PROFILE, a dictionary's
//     SETTINGS(...)) and ALTER TABLE ... MODIFY SETTING.
//
// None of the names below takes a path, a URL or a host. Adding one: the
// client or STE code that sends it, and that its value cannot reach outside
// the data directory.
var allowedSettings = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`
		async_insert
		deduplicate_blocks_in_dependent_materialized_views
		insert_deduplication_token
		materialize_ttl_after_modify
		non_replicated_deduplication_window

		enable_http_compression
		http_zlib_compression_level
		network_compression_method
		network_zstd_compression_level
		send_progress_in_http_headers
		http_headers_progress_interval_ms
		cancel_http_readonly_queries_on_client_close
		http_wait_end_of_query
		http_response_buffer_size
		http_write_exception_in_output_format
		date_time_input_format
		cast_string_to_dynamic_use_inference
		date_time_output_format
		output_format_json_quote_64bit_integers
		output_format_json_quote_decimals
		output_format_arrow_string_as_string
		output_format_arrow_fixed_string_as_fixed_byte_array
		output_format_native_write_json_as_string
		input_format_null_as_default
		input_format_binary_read_json_as_string
		allow_experimental_json_type
		allow_experimental_dynamic_type
		allow_experimental_variant_type
		enable_json_type
		enable_dynamic_type
		enable_variant_type
		session_timezone
		use_client_time_zone
		insert_quorum
		select_sequential_consistency
		wait_for_async_insert
		async_insert_busy_timeout_ms
		async_insert_max_data_size

		readonly
		max_threads
		max_execution_time
		timeout_overflow_mode
		max_memory_usage
		max_rows_to_read
		max_bytes_to_read
		read_overflow_mode
		max_result_rows
		max_result_bytes
		result_overflow_mode
		max_block_size
		max_insert_block_size
		max_query_size
		extremes
		join_use_nulls
		mutations_sync
		lightweight_deletes_sync
		final
		log_comment`) {
		allowedSettings[n] = true
	}
}

// SettingAllowed reports whether the endpoint lets a client set name. Query
// parameters (param_<name>, set with SET param_x = ...) are not settings and
// are allowed.
func SettingAllowed(name string) bool {
	if strings.HasPrefix(name, "param_") && IsName(name[len("param_"):]) {
		return true
	}
	return allowedSettings[strings.ToLower(name)]
}

// known holds the setting names the engine knows (system.settings and
// system.merge_tree_settings), set once when the engine boots, so that a
// misspelt name is still UNKNOWN_SETTING as on a server rather than
// ACCESS_DENIED.
var known atomic.Pointer[map[string]bool]

// SetKnownSettings records the engine's setting names.
func SetKnownSettings(names []string) {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	known.Store(&m)
}

// GuardSetting refuses a setting the endpoint does not allow: code 497
// (ACCESS_DENIED), or 115 (UNKNOWN_SETTING) for a name the engine does not
// know either.
func GuardSetting(name string) *Exception {
	if SettingAllowed(name) {
		return nil
	}
	if m := known.Load(); m != nil && !(*m)[name] {
		return Errorf(CodeUnknownSetting, "Unknown setting '%s'", name)
	}
	return Errorf(CodeAccessDenied, "The setting %s is not allowed by the embedded endpoint: it accepts only the settings STE and ClickHouse's official clients send (see docs/analytics.md)", name)
}

// guardSettingsClause checks every `name =` at the clause's own bracket
// depth from toks[from] on, until the clause ends: a `;`, a bracket closing
// below that depth, or a word that starts the next part of a statement.
// Checking every assignment until then, rather than parsing value forms,
// keeps forms like a settings profile's `a = 1 MIN 0 MAX 2, b = 'x'` from
// hiding the second name.
func guardSettingsClause(q string, toks []token, from, depth int) *Exception {
	for i := from; i < len(toks); i++ {
		t := toks[i]
		if t.depth < depth || (t.kind == tokPunct && q[t.start] == ';') {
			return nil
		}
		if t.depth > depth {
			continue
		}
		afterEq := i > 0 && toks[i-1].kind == tokPunct && q[toks[i-1].start] == '='
		if t.kind == tokWord && !afterEq && clauseEnd[strings.ToLower(t.text(q))] {
			return nil
		}
		if i+1 >= len(toks) || toks[i+1].kind != tokPunct || q[toks[i+1].start] != '=' {
			continue
		}
		name, ex := settingName(q, toks, i)
		if ex != nil {
			return ex
		}
		if name == "" {
			continue // `x.y =` or a literal: not a setting name ClickHouse accepts
		}
		if ex := GuardSetting(name); ex != nil {
			return ex
		}
	}
	return nil
}

// clauseEnd: words after which a SETTINGS clause is over.
var clauseEnd = map[string]bool{
	"select": true, "with": true, "as": true, "format": true, "values": true, "from": true,
	"where": true, "into": true, "union": true, "except": true, "intersect": true,
	"comment": true, "empty": true, "populate": true, "to": true,
}

// settingName returns the setting name at toks[i] (a word or a quoted name),
// "" when the token cannot be one; a quoted name with escapes is refused.
func settingName(q string, toks []token, i int) (string, *Exception) {
	t := toks[i]
	if i > 0 && toks[i-1].kind == tokPunct && q[toks[i-1].start] == '.' {
		return "", Errorf(CodeAccessDenied, "Compound setting names are not allowed by the embedded endpoint")
	}
	switch t.kind {
	case tokWord:
		return t.text(q), nil
	case tokQuoted:
		raw := t.text(q)
		if len(raw) < 2 || strings.ContainsAny(raw[1:len(raw)-1], "\\`\"") {
			return "", Errorf(CodeAccessDenied, "Quoted setting names with escapes are not allowed by the embedded endpoint")
		}
		return raw[1 : len(raw)-1], nil
	}
	return "", nil
}

// guardSet checks a SET statement starting at toks[i] (the SET word): only
// SET name = value[, ...] is accepted (not SET ROLE, SET DEFAULT ROLE, SET
// TRANSACTION ...), and every name must be allowed.
func guardSet(q string, toks []token, i int) *Exception {
	if i+2 >= len(toks) || (toks[i+1].kind != tokWord && toks[i+1].kind != tokQuoted) ||
		toks[i+2].kind != tokPunct || q[toks[i+2].start] != '=' {
		return Errorf(CodeAccessDenied, "Only SET name = value statements are allowed by the embedded endpoint")
	}
	return guardSettingsClause(q, toks, i+1, toks[i].depth)
}
