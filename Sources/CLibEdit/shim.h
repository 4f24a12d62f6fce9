#ifndef SAFEGATE_CLIBEDIT_SHIM_H
#define SAFEGATE_CLIBEDIT_SHIM_H

/* libedit's readline emulation: line editing and history for the chat REPL on a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <editline/readline.h>

/* One line from the terminal (malloc'd, the caller frees it), or NULL at end of input. */
static inline char *sg_edit_readline(const char *prompt) { return readline(prompt); }
static inline void sg_edit_add_history(const char *line) { add_history(line); }
static inline void sg_edit_using_history(void) { using_history(); }

#endif
