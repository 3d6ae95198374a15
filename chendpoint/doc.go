// Package chendpoint is STE's embedded ClickHouse: an http.Handler that owns
// the ClickHouse engine in-process (chDB — github.com/chdb-io/chdb-go over
// libchdb.so) and speaks the part of ClickHouse's HTTP interface that
// clickhouse-go/v2 uses with Protocol: clickhouse.HTTP, both through
// clickhouse.Open and through database/sql (clickhouse.OpenDB).
//
// Why it exists: STE writes its analytics (CLS, audit events, exceptions,
// queue samples) to ClickHouse through clickhouse-go only. Where no modern
// ClickHouse server can be installed (developer machines, CI, single-host
// deployments), this endpoint lets exactly that production code path run
// against the real ClickHouse engine. It is served by chendpoint/cmd/ste-chdb and
// managed by chendpoint/embedded; nothing else may import it, because linking
// chdb-go makes a binary unable to start without libchdb.so.
//
// # What it implements
//
//   - Authentication: every request but /ping carries Options.Password as
//     the password of user default (basic authentication,
//     X-ClickHouse-User/X-ClickHouse-Key, or user/password URL parameters);
//     anything else is code 516. Requests with an Origin or Sec-Fetch-*
//     header (web browsers) and a Host that is not loopback are code 497
//     whatever they carry (auth.go).
//   - Lockdown: table functions, engines, dictionary sources and clauses
//     that reach files, hosts or processes (file, url, remote, s3,
//     executable, INFILE, OUTFILE, ATTACH, BACKUP, SYSTEM, ...) are refused
//     with code 497 in every query a client sends, before the endpoint's own
//     rewriting (internal/wire/guard.go); STE needs none of them.
//     Settings are an allow-list (internal/wire/settings.go: what STE and
//     the official clients send, and query limits), applied alike to URL
//     parameters, SET statements and SETTINGS clauses; any other setting is
//     code 497 (115 if the engine does not know it either).
//   - Confinement of the engine itself (confine.go): chDB's user_files_path,
//     format_schema_path and user_scripts_path are empty private
//     directories, the process works in another, and with
//     Options.Confine the engine thread runs under Landlock (no file written
//     outside the data directory, no TCP connection).
//   - GET and POST on any path (GET is read-only, readonly=2, whatever the
//     request says; readonly=1 may be asked for); /ping answers "Ok.\n".
//   - The query in the body, or in the query URL parameter with the body
//     appended after a newline, as ClickHouse does.
//   - URL parameters: database (USE for the request), default_format
//     (TabSeparated when absent; the driver asks for Native), query_id,
//     param_<name> query parameters for {name:Type} placeholders,
//     compress/decompress, wait_end_of_query, client_protocol_version; every
//     other parameter is a setting of that one query, if the allow-list
//     has it (an unknown one is error 115, as on a server).
//   - Sessions (session_id, session_timeout up to 3600 s, session_check):
//     one chDB connection kept per session, so SET, USE and temporary tables
//     last for the session; at most Options.MaxSessions at once. Unlike a
//     server, settings given as URL parameters on a session's request stay
//     for the session, and GET with session_id is refused (readonly would
//     stick).
//   - The driver's hello query, SELECT displayName(), version(), revision(),
//     timezone(), answered by the endpoint in the client's Native layout with
//     revision 0 (see internal/wire.HelloNative for why).
//   - INSERT ... FORMAT <f> and INSERT ... VALUES with the data in the body
//     (PrepareBatch/Append/Send sends DESCRIBE TABLE, then the statement in
//     the URL and a Native block as the body; InsertFormat and curl send
//     other formats), and INSERT ... FORMAT <f> with inline data in the
//     body. The data is decoded and spooled to a temporary file and run as
//     INSERT ... FROM INFILE, because chDB takes a query as a C string and
//     binary data cannot be passed inline. Settings such as
//     insert_deduplication_token apply to that insert.
//   - Every output format chDB has; Native results decode in clickhouse-go.
//   - HTTP Content-Encoding gzip, deflate (zlib), br, zstd and lz4 (frame) on request
//     bodies; on responses when the client sends Accept-Encoding and the
//     enable_http_compression setting is 1, as ClickHouse requires (the
//     driver's gzip/deflate/br modes do not set it, so they get plain
//     responses — as from a real server). ClickHouse block compression LZ4,
//     LZ4HC, ZSTD or NONE with compress=1 (response) and decompress=1
//     (request), which the driver's LZ4/ZSTD modes use.
//   - External tables (multipart/form-data with <name>_structure or
//     <name>_types and <name>_format), created as temporary tables of the
//     request.
//   - Errors as ClickHouse sends them: a status derived from the code, the
//     code in X-ClickHouse-Exception-Code and a "Code: N. DB::Exception: ..."
//     body, so the driver returns a typed *clickhouse.Exception.
//
// Isolation: every request runs on a chDB connection of its own, opened for
// it (~0.4–0.8 ms) and closed after it. chDB gives each connection its own
// session context, so per-request settings, query parameters, a SET or USE
// sent as a query, and temporary tables end with the request — the
// semantics of a ClickHouse HTTP request without session_id (a session has
// a connection of its own, kept). (Running
// everything on one shared connection would leak a SET into every later
// request.)
//
// # What it does not do
//
//   - Concurrent queries: all chDB calls run one at a time on one engine
//     goroutine locked to one OS thread (ClickHouse keeps thread-local query
//     state). HTTP requests are accepted concurrently and queue; a long
//     query delays every other client, including health checks.
//   - Users, grants, quotas, TLS: none. One password; whoever has it can
//     read and write every table. Serve it on loopback only (chendpoint/cmd/ste-chdb
//     refuses other addresses): the password travels in clear.
//   - Cancellation: a query that started runs to completion even if the
//     client goes away (a request still queued is dropped). Use the
//     max_execution_time setting to bound queries.
//   - Streaming: a result is built whole in chDB's memory before the first
//     byte is sent (results above Options.StreamThreshold are then written
//     straight from that buffer, without a copy). chDB's streaming API would
//     avoid that, but in libchdb 26.7.3-stable.1 chdb_stream_cancel_query,
//     which chdb-go calls when a stream is freed, intermittently deadlocks
//     after a query error. Hence no progress headers
//     (send_progress_in_http_headers has no effect) and no
//     X-ClickHouse-Summary.
//   - Native layout: chDB writes the revision-0 layout only;
//     client_protocol_version is honoured for the hello query alone, which
//     is why the hello answer says revision 0.
//   - One engine per process and one process per data directory (chDB locks
//     the directory); Open fails for a second directory in the same
//     process.
//   - Block-compressed request bodies are limited to 128 MiB per block
//     (ch-go's reader); clickhouse-go sends one batch as one block.
//   - Query text read from the body is capped (Options.MaxQueryBytes); data
//     sent with the statement in the URL, as the driver does, is not.
//   - Heredoc strings ($$...$$) are not understood by the small lexer that
//     finds an INSERT's FORMAT clause.
package chendpoint
