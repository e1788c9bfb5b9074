/** The `upload` command's help lines (kept apart so --help loads no engine code). */
export const UPLOAD_HELP = `  tributary upload FILE [NAME]        store a CSV/TSV/JSON/NDJSON/Parquet/XLSX file as the table files.NAME
                                      (NAME defaults to the file name; --replace, --format F, --sheet S;
                                      --url http://host:port [--token T] sends it to a running server)`;
