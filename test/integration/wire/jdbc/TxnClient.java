/*
 * Transactions through JDBC (MariaDB Connector/J) against the MySQL listener: autocommit off,
 * rollback, commit, a connection closed inside a transaction. Compiled and run by
 * transactions.test.ts; prints one JSON object of counts.
 * Usage: java -cp <jar>:<dir> TxnClient <jdbc url> <table> <first id>
 */
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

public class TxnClient {
  static int count(Connection c, String table, int id) throws Exception {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE id = " + id)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static int fresh(String url, String table, int id) throws Exception {
    try (Connection c = DriverManager.getConnection(url)) {
      return count(c, table, id);
    }
  }

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String table = args[1];
    int id = Integer.parseInt(args[2]);
    StringBuilder out = new StringBuilder("{");
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("INSERT INTO " + table + " (id, v) VALUES (" + id + ", 'jdbc')");
      }
      out.append("\"own\":").append(count(c, table, id));
      out.append(",\"bystander\":").append(fresh(url, table, id));
      c.rollback();
      out.append(",\"after_rollback\":").append(fresh(url, table, id));
      try (Statement st = c.createStatement()) {
        st.executeUpdate("INSERT INTO " + table + " (id, v) VALUES (" + (id + 1) + ", 'jdbc')");
      }
      c.commit();
      out.append(",\"after_commit\":").append(fresh(url, table, id + 1));
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("INSERT INTO " + table + " (id, v) VALUES (" + (id + 2) + ", 'jdbc')");
      }
      out.append(",\"autocommitted\":").append(fresh(url, table, id + 2));
    }
    Connection c = DriverManager.getConnection(url);
    c.setAutoCommit(false);
    try (Statement st = c.createStatement()) {
      st.executeUpdate("INSERT INTO " + table + " (id, v) VALUES (" + (id + 3) + ", 'jdbc')");
    }
    c.close();
    out.append(",\"after_close\":").append(fresh(url, table, id + 3));
    System.out.println(out.append("}"));
  }
}
