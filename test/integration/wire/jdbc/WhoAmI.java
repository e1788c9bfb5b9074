import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Logs in with the URL given and prints who the statements run as: `user|groups`, or `ERR code message`. */
public class WhoAmI {
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0]);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT CURRENT_USER(), CURRENT_GROUPS()")) {
      r.next();
      System.out.println(r.getString(1) + "|" + r.getString(2));
    } catch (SQLException e) {
      System.out.println("ERR " + e.getErrorCode() + " " + e.getMessage());
    }
  }
}
