"""clickhouse-connect (and pandas) against STE's analytics endpoint, with the
client's default settings: session id, lz4-compressed inserts, Native reads.
Prints one JSON object with what it saw; the Go test judges it."""
import json
import os
import sys

import clickhouse_connect

host, port, password, table = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
client = clickhouse_connect.get_client(host=host, port=port, database='ste', password=password)
out = {}
out['query'] = client.query('SELECT 40 + 2').result_rows[0][0]
out['param'] = client.query('SELECT {x:UInt32} + 1', parameters={'x': 41}).result_rows[0][0]
df = client.query_df(f'SELECT n, s FROM {table} ORDER BY n')
out['read'] = {'rows': len(df), 'sum': int(df['n'].sum()), 's': list(df['s'])}
client.insert(table, [[10, 'py-x'], [11, 'py-y']], column_names=['n', 's'])
client.insert_df(table, df.assign(n=df['n'] + 100))
client.command('SET max_threads = 3')  # lives for the client's session
out['session'] = client.query("SELECT getSetting('max_threads')").result_rows[0][0]
try:
    client.query('SELECT * FROM no_such_table')
    out['error'] = 'none'
except clickhouse_connect.driver.exceptions.DatabaseError as e:
    out['error'] = str(e)
print(json.dumps(out, default=str))
