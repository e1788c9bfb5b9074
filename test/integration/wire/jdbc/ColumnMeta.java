import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;

/**
 * Prints ResultSetMetaData of one query as JSON lines, one per column: what a JDBC tool
 * (DBeaver, an ORM) reads of a result's columns. Usage: ColumnMeta <jdbc url> <sql>
 */
public class ColumnMeta {
  private static String q(String s) {
    return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0]);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(args[1])) {
      ResultSetMetaData m = rs.getMetaData();
      for (int i = 1; i <= m.getColumnCount(); i++) {
        System.out.println(
            "{\"label\":" + q(m.getColumnLabel(i))
                + ",\"name\":" + q(m.getColumnName(i))
                + ",\"table\":" + q(m.getTableName(i))
                + ",\"nullable\":" + m.isNullable(i)
                + ",\"autoIncrement\":" + m.isAutoIncrement(i)
                + ",\"signed\":" + m.isSigned(i)
                + "}");
      }
    }
  }
}
