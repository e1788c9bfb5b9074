/*
 * Binary values through the MySQL listener with MariaDB Connector/J (Debian's libmariadb-java):
 * PreparedStatement.setBytes as Connector/J sends it by default (client-side prepared: the
 * bytes escaped into the statement text after `_binary '`), then each row read back through
 * a Statement (text protocol) and a server-side PreparedStatement (binary protocol).
 * Compiled and run by binary.test.ts; prints one JSON object of hex strings.
 * Usage: java -cp <jar>:<dir> BinaryClient <port> <hex of the value> <table>...
 */
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

public class BinaryClient {
  public static void main(String[] args) throws Exception {
    String base = "jdbc:mariadb://127.0.0.1:" + args[0] + "/?user=anyone&connectTimeout=10000";
    byte[] value = unhex(args[1]);
    StringBuilder out = new StringBuilder("{");
    try (Connection conn = DriverManager.getConnection(base)) {
      for (int i = 2; i < args.length; i++) {
        String table = args[i];
        try (Statement st = conn.createStatement()) {
          st.executeUpdate("DELETE FROM " + table + " WHERE id = 7");
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)")) {
          if (i == 2) field(out, "prepared_class", "\"" + ps.getClass().getSimpleName() + "\"");
          ps.setInt(1, 7);
          ps.setBytes(2, value);
          ps.executeUpdate();
        }
        try (Statement st = conn.createStatement();
            ResultSet rs = st.executeQuery("SELECT v FROM " + table + " WHERE id = 7")) {
          rs.next();
          field(out, table + " text", "\"" + hex(rs.getBytes(1)) + "\"");
        }
      }
    }
    try (Connection conn = DriverManager.getConnection(base + "&useServerPrepStmts=true")) {
      for (int i = 2; i < args.length; i++) {
        String table = args[i];
        try (PreparedStatement ps = conn.prepareStatement("SELECT v FROM " + table + " WHERE id = ?")) {
          ps.setInt(1, 7);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            field(out, table + " binary", "\"" + hex(rs.getBytes(1)) + "\"");
          }
        }
      }
    }
    out.append("}");
    System.out.println(out);
  }

  static void field(StringBuilder out, String name, String json) {
    if (out.length() > 1) out.append(',');
    out.append('"').append(name).append("\":").append(json);
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x & 0xff));
    return s.toString();
  }

  static byte[] unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return b;
  }
}
