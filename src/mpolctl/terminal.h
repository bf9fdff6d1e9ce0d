/* terminal.h - what mpolctl writes on its standard output and error is safe to show.
 *
 * Text reaches them from sysfs trees, bandwidth tables, plugstack lines, job records
 * and the command line, any of which may hold an escape sequence or bytes that are not
 * UTF-8. Instead of trusting every printf to quote its arguments, both streams pass
 * through one filter: a control byte (other than newline and tab), a C1 control
 * (U+0080-U+009F) and a byte that is not part of valid UTF-8 go out as \xNN, as
 * mpolctl(8) says. JSON is not changed by it: json-c escapes control bytes, and
 * cli_print_json writes the others as the text \xNN too.
 */
#ifndef MPOLCTL_TERMINAL_H
#define MPOLCTL_TERMINAL_H

/* Put the filter in front of stdout and stderr (line-buffered). Call first in main. */
void terminal_filter_install(void);

#endif
