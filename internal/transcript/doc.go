// Package transcript reads Claude Code's session transcripts: the JSONL
// files under ~/.claude/projects (claude-code-hooks.md §8). They are the
// only complete record of a session: every prompt, every response, every
// tool call with its input and its full output, and the compactions that
// took them out of the model's context. Replay runs their tool results
// through a policy, the archive keeps their turns across compactions, and
// the context monitor reads from them how full the context is.
//
// The files are written by another program while ctxkeep reads them, and
// their format changes between client versions (1.0.x to 2.1.x here), so
// reading is incremental and tolerant: a Scanner starts at a Cursor and
// returns one, stops before a line still being written, and reports lines
// it cannot read as Problems instead of failing. Every Record keeps its
// line byte for byte, so that tools that rewrite transcripts can copy what
// they do not change.
//
// Above the records:
//   - Responses merges the lines of one assistant response;
//   - ToolCalls pairs each tool_use with its tool_result;
//   - Compactions, History and Live show the compactions, everything ever
//     said, and what the model sees now;
//   - Turns cuts the conversation into exchanges;
//   - ctxkeep.Usage is the context size as the client counts it.
//
// Subagents run in their own transcripts (Subagents lists them); their
// records have AgentID set and are never part of the main conversation.
package transcript
