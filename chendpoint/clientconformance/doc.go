// Package clientconformance holds STE's analytics endpoint (ste-chdb) to
// ClickHouse's official clients used as they come — clickhouse-connect with
// pandas, the JDBC driver com.clickhouse:jdbc-v2 (DBeaver, BI tools), the
// Node client @clickhouse/client, and clickhouse-go/v2 — each with its
// default settings and only the address, database ste and the endpoint's
// password: a query, a parameterised query, a DataFrame or ResultSet read,
// an insert and an error. The clients are installed by install.sh (make
// clients), cached; the test is in clients_test.go.
package clientconformance
