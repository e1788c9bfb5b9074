/**
 * Client programs from Debian for the MySQL listener's tests: Python (PyMySQL, SQLAlchemy,
 * pandas) run by Debian's own /usr/bin/python3 (a pyenv python3 earlier on PATH has none of
 * these packages), and Java (a JDK and MariaDB Connector/J). Each is installed with apt-get
 * when missing, as ensureChromium does for the console's browser.
 */
import { execFile, execFileSync, execSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

export const DEBIAN_PYTHON = '/usr/bin/python3';

function aptInstall(packages: string[]): void {
  execSync(
    `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(' ')}`,
    { stdio: 'ignore', shell: '/bin/bash', timeout: 600_000 },
  );
}

function pythonImports(modules: string): boolean {
  try {
    execFileSync(DEBIAN_PYTHON, ['-c', `import ${modules}`], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** Debian's python3 with pymysql, sqlalchemy and pandas importable; its path. */
export function ensurePythonClients(): string {
  const modules = 'pymysql, sqlalchemy, pandas';
  if (pythonImports(modules)) return DEBIAN_PYTHON;
  aptInstall(['python3', 'python3-pymysql', 'python3-sqlalchemy', 'python3-pandas']);
  if (!pythonImports(modules)) {
    // A half-configured install (another apt run cut short) leaves numpy without its libraries.
    try {
      execSync('DEBIAN_FRONTEND=noninteractive dpkg --configure -a', { stdio: 'ignore', timeout: 600_000 });
    } catch {
      // the check below says what is still missing
    }
  }
  if (!pythonImports(modules))
    throw new Error(`${DEBIAN_PYTHON} cannot import ${modules} even after apt-get install`);
  return DEBIAN_PYTHON;
}

const JAVA_DIR = '/usr/share/java';

function connectorJar(): string | null {
  if (!existsSync(JAVA_DIR)) return null;
  const jars = readdirSync(JAVA_DIR).filter((n) => /^mariadb-java-client.*\.jar$/.test(n));
  // The unversioned link first (it follows the installed package).
  jars.sort((a, b) => a.length - b.length);
  return jars.length ? `${JAVA_DIR}/${jars[0]}` : null;
}

/** javac, java and the MariaDB Connector/J jar (Debian's libmariadb-java). */
export function ensureJavaClients(): { javac: string; java: string; jar: string } {
  if (!existsSync('/usr/bin/javac') || !connectorJar())
    aptInstall(['default-jdk-headless', 'libmariadb-java']);
  const jar = connectorJar();
  if (!existsSync('/usr/bin/javac') || !jar)
    throw new Error('javac or the MariaDB Connector/J jar is missing even after apt-get install');
  return { javac: '/usr/bin/javac', java: '/usr/bin/java', jar };
}

/**
 * Runs a Python test script with `job` (JSON) on its stdin and parses the JSON it prints:
 * the shape the wire tests' scripts under test/integration/wire/python share.
 */
export function runPythonJob<T = any>(
  python: string,
  script: string,
  job: Record<string, unknown>,
  timeout = 60_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = execFile(python, [script], { timeout }, (err, out, errText) => {
      if (err) reject(new Error(`${JSON.stringify(job).slice(0, 80)}: ${err.message}\n${errText}`));
      else resolve(JSON.parse(out) as T);
    });
    child.stdin?.end(JSON.stringify(job));
  });
}
