// Empty: fuzz_agent_request builds the agent JSON reader without Winsock (see windows.h).
#pragma once
