// ClickHouse's official JDBC driver (com.clickhouse:jdbc-v2) against STE's
// analytics endpoint, with the driver's defaults — what DBeaver and BI tools
// use. Run as a single-file program: java -cp 'LIB/*' Client.java HOST PORT
// PASSWORD TABLE. Prints one JSON object with what it saw.
import java.sql.*;
import java.util.*;

public class Client {
    public static void main(String[] a) throws Exception {
        String url = "jdbc:clickhouse://" + a[0] + ":" + a[1] + "/ste";
        Properties p = new Properties();
        p.setProperty("user", "default");
        p.setProperty("password", a[2]);
        String table = a[3];
        StringBuilder out = new StringBuilder("{");
        // The driver itself, as DBeaver loads it: DriverManager refuses a
        // driver from the class path to a program run from source.
        try (Connection c = new com.clickhouse.jdbc.Driver().connect(url, p)) {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 40 + 2")) {
                rs.next();
                out.append("\"query\":").append(rs.getLong(1));
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT ? + 1")) {
                ps.setInt(1, 41);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    out.append(",\"param\":").append(rs.getLong(1));
                }
            }
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT n, s FROM " + table + " ORDER BY n")) {
                int rows = 0;
                long sum = 0;
                List<String> s = new ArrayList<>();
                while (rs.next()) {
                    rows++;
                    sum += rs.getLong("n");
                    s.add("\"" + rs.getString("s") + "\"");
                }
                out.append(",\"read\":{\"rows\":").append(rows).append(",\"sum\":").append(sum)
                   .append(",\"s\":[").append(String.join(",", s)).append("]}");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (n, s) VALUES (?, ?)")) {
                ps.setInt(1, 10); ps.setString(2, "jdbc-x"); ps.addBatch();
                ps.setInt(1, 11); ps.setString(2, "jdbc-y"); ps.addBatch();
                ps.executeBatch();
            }
            try (Statement st = c.createStatement()) {
                st.executeQuery("SELECT * FROM no_such_table");
                out.append(",\"error\":\"none\"");
            } catch (SQLException e) {
                out.append(",\"error\":\"").append(e.getMessage().replace("\\", "\\\\").replace("\"", "'").replace("\n", " ")).append("\"");
            }
        }
        System.out.println(out.append("}"));
    }
}
