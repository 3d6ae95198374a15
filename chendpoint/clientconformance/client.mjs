// The official Node client (@clickhouse/client) against STE's analytics
// endpoint, with its defaults. node client.mjs HOST PORT PASSWORD TABLE
// (NODE_PATH names the installed node_modules). Prints one JSON object.
import { createRequire } from 'node:module'
import path from 'node:path'
const require = createRequire(path.join(process.env.NODE_PATH, 'x.js'))
const { createClient } = require('@clickhouse/client')

const [host, port, password, table] = process.argv.slice(2)
const client = createClient({ url: `http://${host}:${port}`, database: 'ste', username: 'default', password })
const out = {}
const one = async (query, params) => {
  const rs = await client.query({ query, query_params: params, format: 'JSONCompactEachRow' })
  return (await rs.json())[0][0]
}
out.query = Number(await one('SELECT 40 + 2'))
out.param = Number(await one('SELECT {x:UInt32} + 1', { x: 41 }))
const rows = await (await client.query({ query: `SELECT n, s FROM ${table} ORDER BY n`, format: 'JSONEachRow' })).json()
out.read = { rows: rows.length, sum: rows.reduce((a, r) => a + Number(r.n), 0), s: rows.map((r) => r.s) }
await client.insert({ table, values: [{ n: 10, s: 'node-x' }, { n: 11, s: 'node-y' }], format: 'JSONEachRow' })
try {
  await client.query({ query: 'SELECT * FROM no_such_table' })
  out.error = 'none'
} catch (e) {
  out.error = String(e.message)
}
await client.close()
console.log(JSON.stringify(out))
