package bridge

import "strings"

// linuxErrnoText maps the text Go's js/wasm port gives file-system errnos (syscall/tables_js.go)
// to the text Go on Linux gives them, which is what Tazuna prints: "open x: No such file or
// directory" must read "open x: no such file or directory" for error messages to match.
var linuxErrnoText = strings.NewReplacer(
	": Operation not permitted", ": operation not permitted",
	": No such file or directory", ": no such file or directory",
	": I/O error", ": input/output error",
	": Permission denied", ": permission denied",
	": File exists", ": file exists",
	": Not a directory", ": not a directory",
	": Is a directory", ": is a directory",
	": Invalid argument", ": invalid argument",
	": Read-only file system", ": read-only file system",
	": File name too long", ": file name too long",
	": Too many symbolic links", ": too many levels of symbolic links",
)

// errorText is err's message as Go on Linux would word it.
func errorText(err error) string {
	return linuxErrnoText.Replace(err.Error())
}
