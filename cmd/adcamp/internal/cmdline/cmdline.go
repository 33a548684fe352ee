// Package cmdline is what adcamp's commands share of the command line:
// flag sets that print nothing of their own, parsing that allows flags
// after the positional arguments, and the mistakes that exit with
// status 2. The administrative commands (package main) and the API
// commands (package apicmd) use it alike, so that both answer a mistake
// the same way.
package cmdline

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrUsage marks mistakes on the command line (exit status 2).
var ErrUsage = errors.New("usage")

// Usagef returns a mistake on the command line, described as fmt.Sprintf
// would.
func Usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// ExitCode is the exit status of a command that failed with err: 2 for a
// mistake on the command line, 1 for anything else.
func ExitCode(err error) int {
	if errors.Is(err, ErrUsage) {
		return 2
	}
	return 1
}

// NewFlags returns a flag set that does not exit and prints nothing of
// its own: Parse reports mistakes, and prints the help asked for.
func NewFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Parse parses args, allowing flags after positional arguments
// ("keys disable KEY --json"), and returns the positional ones. On -h it
// prints the command's flags on stdout and returns flag.ErrHelp (exit 0);
// a mistake is a usage error that says how to get that help.
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "Usage of adcamp %s:\n", fs.Name())
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				fs.SetOutput(io.Discard)
				return nil, err
			}
			return nil, Usagef("%v (run \"adcamp %s -h\" for its flags)", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
