/*
 * A JDBC client of the MySQL listener (MariaDB Connector/J, Debian's libmariadb-java):
 * a cross-source join through Statement, the same with parameters through a server-side
 * PreparedStatement (COM_STMT_PREPARE / EXECUTE, binary rows), and the DatabaseMetaData
 * lookups tools make. Compiled and run by jdbc-client.test.ts; prints one JSON object.
 * Usage: java -cp <jar>:<dir> WireClient <jdbc url> <join sql> <param sql> <int param> <text param>
 */
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

public class WireClient {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    StringBuilder out = new StringBuilder("{");
    try (Connection conn = DriverManager.getConnection(url)) {
      DatabaseMetaData meta = conn.getMetaData();
      field(out, "product", str(meta.getDatabaseProductName()));
      field(out, "version", str(meta.getDatabaseProductVersion()));
      field(out, "catalog", str(conn.getCatalog()));
      try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(args[1])) {
        field(out, "join", rows(rs));
      }
      try (PreparedStatement ps = conn.prepareStatement(args[2])) {
        // ServerSidePreparedStatement: COM_STMT_PREPARE / EXECUTE, rows in the binary protocol.
        field(out, "prepared_class", str(ps.getClass().getSimpleName()));
        ps.setInt(1, Integer.parseInt(args[3]));
        ps.setString(2, args[4]);
        try (ResultSet rs = ps.executeQuery()) {
          field(out, "param", rows(rs));
        }
        // Executed again with other values: the same prepared statement, new parameters.
        ps.setInt(1, 0);
        ps.setString(2, "Ada");
        try (ResultSet rs = ps.executeQuery()) {
          field(out, "param_again", rows(rs));
        }
      }
      String db = conn.getCatalog();
      try (ResultSet rs = meta.getTables(db, null, "%", new String[] {"TABLE", "VIEW"})) {
        field(out, "tables", columns(rs, "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE"));
      }
      try (ResultSet rs = meta.getColumns(db, null, "visits", "%")) {
        field(out, "columns", columns(rs, "COLUMN_NAME", "TYPE_NAME", "DATA_TYPE", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "ORDINAL_POSITION"));
      }
      try (ResultSet rs = meta.getPrimaryKeys(db, null, "visits")) {
        field(out, "pk", columns(rs, "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ"));
      }
      try (ResultSet rs = meta.getImportedKeys(db, null, "visits")) {
        field(out, "fks", columns(rs, "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME"));
      }
      try (ResultSet rs = meta.getCatalogs()) {
        field(out, "catalogs", columns(rs, "TABLE_CAT"));
      }
    }
    out.setLength(out.length() - 1);
    out.append("}");
    System.out.println(out);
  }

  static void field(StringBuilder out, String name, String json) {
    out.append(str(name)).append(':').append(json).append(',');
  }

  /** Each value as POST /api/sql/query writes it: integers as numbers, DECIMAL as exact text. */
  static String rows(ResultSet rs) throws Exception {
    ResultSetMetaData md = rs.getMetaData();
    List<String> rows = new ArrayList<>();
    while (rs.next()) {
      List<String> vals = new ArrayList<>();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        vals.add(value(rs, i, md.getColumnType(i)));
      }
      rows.add("[" + String.join(",", vals) + "]");
    }
    return "[" + String.join(",", rows) + "]";
  }

  static String value(ResultSet rs, int i, int type) throws Exception {
    switch (type) {
      case Types.TINYINT:
      case Types.SMALLINT:
      case Types.INTEGER:
      case Types.BIGINT: {
        long v = rs.getLong(i);
        return rs.wasNull() ? "null" : Long.toString(v);
      }
      case Types.DECIMAL:
      case Types.NUMERIC: {
        BigDecimal v = rs.getBigDecimal(i);
        return v == null ? "null" : str(v.toPlainString());
      }
      case Types.DATE: {
        java.sql.Date v = rs.getDate(i);
        return v == null ? "null" : str(v.toString());
      }
      case Types.TIMESTAMP: {
        java.sql.Timestamp v = rs.getTimestamp(i);
        if (v == null) return "null";
        String s = v.toString();
        return str(s.endsWith(".0") ? s.substring(0, s.length() - 2) : s);
      }
      default: {
        String v = rs.getString(i);
        return v == null ? "null" : str(v);
      }
    }
  }

  static String columns(ResultSet rs, String... names) throws Exception {
    List<String> rows = new ArrayList<>();
    while (rs.next()) {
      List<String> vals = new ArrayList<>();
      for (String n : names) {
        String v = rs.getString(n);
        vals.add(v == null ? "null" : str(v));
      }
      rows.add("[" + String.join(",", vals) + "]");
    }
    return "[" + String.join(",", rows) + "]";
  }

  static String str(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}
