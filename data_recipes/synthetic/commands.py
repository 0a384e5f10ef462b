"""The command_tool kind: one generic command-runner tool, and a request that gives the command to run.

BFCL live_simple offers `cmd_controller.execute(command)` in 28 of its 258 items (11%), mostly with the command
in the request ("disconnect wifi, using the command ..."); the call copies it. The models trained on this
generator declined almost all of them: quality-gpu-300-new 24 of the 28, quality-gpu 28 of 28, with the
synthetic near-miss refusal ("I can only help with computing right now, not a request to ..."). No call kind here
offered a tool whose one argument is a free command line, so a request about Wi-Fi or the clock met a tool about
neither and looked like a near miss. This kind gives the contrast:
- the tool runs commands in a Windows command prompt, a Linux shell, PowerShell or macOS's terminal, under one of
  several names and descriptions, sometimes with optional settings the request never asks for (a time unit among them);
- the request states a purpose and the command, in one of several phrasings, the command bare or in backticks or
  quotes; the call carries the command exactly as written, without the quoting;
- the command comes from our fixed list (COMMANDS) or, in 60% of rows, from a template filled with other programs,
  sites, drives, files and numbers (TEMPLATES: `taskkill /IM Zoom.exe /F`, `shutdown /r /t 90`, `start
  https://github.com`), sometimes two joined by `&&`, so that the whole command is copied, flags and all;
- 0-2 unrelated tools are offered beside it.
Some commands hold double quotes or backslashed paths, which the call must escape in JSON (the A/B's model broke
`tasklist /FI "IMAGENAME eq Code.exe"` when none did). The commands are our own list (COMMANDS); none is invented
from the purpose, as everywhere in this generator: the
request always shows the command the call sends.

Run: through data_recipes.synthetic.generate, e.g. `generate(10, kinds={"command_tool": 1})`.
Left out: requests that leave the command to the model ("list the c drive" -> `dir C:\\`): mapping a purpose to a
command is knowledge the request does not hold.
"""

from __future__ import annotations

import random

from data_recipes.synthetic.kinds import assistant_calls, others, start

# (shell, names, descriptions, the command parameter's description)
SHELLS = {
    "windows": (["system.run_command", "terminal.execute", "winshell.run", "execute_cmd", "CmdRunner.run"],
                ["Runs a command in the Windows command prompt (cmd.exe) and returns what it prints.",
                 "Executes a command line on the user's Windows PC through the system shell.",
                 "Sends one command to cmd.exe on this Windows machine."],
                "The command line to run, written as it would be typed at the Windows command prompt."),
    "linux": (["shell.run", "bash_exec", "run_terminal_command", "linux_shell.execute", "ShellTool.exec"],
              ["Runs a shell command on the Linux host and returns its output and exit status.",
               "Executes a bash command line on the user's Linux machine.",
               "Runs one command in a Linux terminal session."],
              "The bash command line to run, exactly as typed in a terminal."),
    "powershell": (["powershell.invoke", "run_powershell", "PSRunner.execute"],
                   ["Runs a PowerShell command on the Windows machine and returns its output.",
                    "Executes one PowerShell command line on the user's computer."],
                   "The PowerShell command to execute."),
    "mac": (["mac_terminal.run", "zsh_exec", "run_mac_command"],
            ["Runs a command in the macOS terminal (zsh) and returns what it prints.",
             "Executes a shell command on the user's Mac."],
            "The command line to run in the macOS terminal."),
}

# Optional settings a runner may offer; the request never asks for them, so the call leaves them out.
OPTIONAL = [("timeout_seconds", {"type": "integer", "description": "Give up after this many seconds.",
                                 "default": 60}),
            ("working_directory", {"type": "string", "description": "Folder to run the command in (default: "
                                                                   "the current one).", "default": "."}),
            ("capture_output", {"type": "boolean", "description": "Return the command's output.", "default": True}),
            ("shell_mode", {"type": "string", "enum": ["interactive", "batch"], "description": "How the shell "
                                                                                              "session runs.",
                            "default": "batch"}),
            ("time_unit", {"type": "string", "enum": ["seconds", "milliseconds"], "description": "The unit the "
                           "run time is reported in.", "default": "seconds"})]

# shell -> (purpose, command): what the user wants done, and the command they give for it.
COMMANDS = {
    "windows": [
        ("show the network settings", "ipconfig /all"), ("flush the DNS cache", "ipconfig /flushdns"),
        ("list the running programs", "tasklist"), ("print which user I am logged in as", "whoami"),
        ("show the system details", "systeminfo"), ("check if the router answers", "ping -n 4 192.168.0.1"),
        ("make a folder called invoices", "mkdir invoices"), ("show what is in notes.txt", "type notes.txt"),
        ("copy report.docx to the backup folder", "copy report.docx backup\\report.docx"),
        ("open notepad", "start notepad"), ("open the paint app", "start mspaint"),
        ("restart the computer in two minutes", "shutdown /r /t 120"), ("cancel the planned shutdown", "shutdown /a"),
        ("show the saved wifi networks", "netsh wlan show profiles"), ("stop the print spooler", "net stop spooler"),
        ("see which ports are listening", "netstat -an"), ("print the PATH variable", "echo %PATH%"),
        ("open the downloads folder", "explorer %USERPROFILE%\\Downloads"),
        ("close the chrome windows", "taskkill /IM chrome.exe /F"), ("list the files in the temp folder", "dir %TEMP%"),
        ("check the python version", "python --version"), ("show the free space on drive E", "fsutil volume diskfree E:"),
        ("rename draft.txt to final.txt", "ren draft.txt final.txt"), ("delete old.log", "del old.log"),
        ("open example.org in the browser", "start https://example.org"),
        ("see the route to the mail server", "tracert mail.example.com"),
        ("list the scheduled tasks", "schtasks /query"), ("show the computer's name", "hostname"),
        ("lock the screen", "rundll32.exe user32.dll,LockWorkStation"), ("open the calculator", "start calc.exe"),
        ("search app.log for errors", 'findstr /i "error" app.log'),
        ("commit the staged changes", 'git commit -m "fix the login bug"'),
        ("delete the old draft on the desktop", 'del "%USERPROFILE%\\Desktop\\old draft.txt"'),
        ("list only the programs that are running", 'tasklist /FI "STATUS eq running"'),
    ],
    "linux": [
        ("show how full the disks are", "df -h"), ("list every file here with sizes", "ls -la"),
        ("print the current folder", "pwd"), ("see how much memory is free", "free -m"),
        ("check how long the server has been up", "uptime"), ("show the last 50 log lines", "tail -n 50 /var/log/syslog"),
        ("find the python files under src", "find src -name '*.py'"), ("count the lines in app.py", "wc -l app.py"),
        ("check whether nginx is running", "systemctl status nginx"),
        ("restart the ssh service", "sudo systemctl restart ssh"), ("show the kernel version", "uname -r"),
        ("look for TODO comments in the code", "grep -rn TODO ."), ("make a build folder", "mkdir -p build"),
        ("pack the logs folder into an archive", "tar -czf logs.tar.gz logs"),
        ("see the busiest processes", "ps aux --sort=-%cpu | head"), ("check the node version", "node --version"),
        ("show my ip addresses", "ip addr show"), ("download the data file", "curl -O https://example.org/data.csv"),
        ("see the last ten commits", "git log --oneline -10"), ("run the test target", "make test"),
        ("install the jq package", "sudo apt-get install -y jq"), ("show who is logged in", "who"),
        ("make deploy.sh executable", "chmod +x deploy.sh"), ("see the size of the home folder", "du -sh ~"),
        ("print today's date", "date +%F"), ("check the open ports", "ss -tuln"),
        ("follow the app log", "journalctl -u app -n 100"), ("list the cron jobs", "crontab -l"),
        ("see the git status of the repo", "git status"), ("show the environment variables", "printenv"),
        ("find the timeout lines in the server log", 'grep -n "timeout" server.log'),
        ("commit everything with a message", 'git commit -am "update the readme"'),
        ("write hello world into a file", 'echo "hello world" > hello.txt'),
    ],
    "powershell": [
        ("list the services that are running", "Get-Service | Where-Object Status -eq 'Running'"),
        ("show the five biggest processes", "Get-Process | Sort-Object CPU -Descending | Select-Object -First 5"),
        ("see the files changed today", "Get-ChildItem -Recurse | Where-Object LastWriteTime -gt (Get-Date).Date"),
        ("check the execution policy", "Get-ExecutionPolicy"), ("show the IP configuration", "Get-NetIPConfiguration"),
        ("test the connection to the file server", "Test-Connection fileserver01 -Count 2"),
        ("restart the print spooler", "Restart-Service Spooler"), ("show the PowerShell version", "$PSVersionTable"),
        ("read the first lines of todo.txt", "Get-Content todo.txt -TotalCount 10"),
        ("clear the recycle bin", "Clear-RecycleBin -Force"),
        ("find the word invoice in the text files", 'Select-String -Path *.txt -Pattern "invoice"'),
    ],
    "mac": [
        ("open the Safari browser", "open -a Safari"), ("show the battery state", "pmset -g batt"),
        ("see the disk list", "diskutil list"), ("check the macOS version", "sw_vers"),
        ("flush the DNS cache", "sudo dscacheutil -flushcache"), ("show the wifi network name",
                                                                   "networksetup -getairportnetwork en0"),
        ("open the current folder in Finder", "open ."), ("copy the file path to the clipboard", "pwd | pbcopy"),
        ("install wget with homebrew", "brew install wget"), ("keep the Mac awake for an hour", "caffeinate -t 3600"),
    ],
}

# Templated commands: the same shapes with other programs, sites, drives, files and numbers, so
# that a model learns to copy a command whole rather than a list of 88. The choices-seed2 model cut flagged
# commands to their first word on BFCL live_simple ("shutdown /s /t 0" -> "shutdown", "start https://..." ->
# "start" and the rest in an optional `unit`). shell -> (purpose, command forms); the fields come from SLOTS.
TEMPLATES = {
    "windows": [
        ("close {app}", ["taskkill /IM {exe} /F", "taskkill /F /IM {exe}", "taskkill /IM {exe}"]),
        ("check whether {app} is running", ['tasklist /FI "IMAGENAME eq {exe}"']),
        ("open {app}", ["start {exe}"]), ("open {site}", ["start {url}"]),
        ("shut the pc down in {n} seconds", ["shutdown /s /t {n}"]),
        ("restart the pc in {n} seconds", ["shutdown /r /t {n}"]),
        ("wait {n} seconds", ["timeout {n}", "timeout /t {n}"]), ("set a timer for {n} seconds", ["timeout /t {n}"]),
        ("list the files on the {D} drive", ["dir {D}:\\"]),
        ("list what is in my {folder} folder", ['dir "%USERPROFILE%\\{folder}"', "dir %USERPROFILE%\\{folder}"]),
        ("print {word}", ["echo {word}"]), ("ping {host}", ["ping {host}", "ping -n {k} {host}"]),
        ("delete {file} from the desktop", ['del "%USERPROFILE%\\Desktop\\{file}"']),
        ("copy {file} to the {D} drive", ["copy {file} {D}:\\backup\\{file}"]),
        ("make a folder called {name} on the {D} drive", ["mkdir {D}:\\{name}"]),
        ("run {script} with the python of the {name} virtual environment",
         ["{d}:/work/{name}/venv/Scripts/python.exe {d}:/work/{name}/{script}"]),
    ],
    "linux": [
        ("stop {app}", ["pkill {proc}", "pkill -f {proc}", "killall {proc}"]), ("open {site}", ["xdg-open {url}"]),
        ("wait {n} seconds", ["sleep {n}"]), ("show the last {k} lines of {log}", ["tail -n {k} {log}"]),
        ("search {text} for {word}", ['grep -n "{word}" {text}', 'grep -i "{word}" {text}']),
        ("ping {host} {k} times", ["ping -c {k} {host}"]),
        ("make a branch called {branch}", ["git checkout -b {branch}"]),
        ("install {pkg}", ["pip install {pkg}", "pip install {pkg}=={version}"]),
        ("list the files in {dir}", ["ls -la {dir}", "ls {dir}"]),
        ("run the tests in {test}", ["python -m pytest {test} -q"]),
        ("shut the server down in {k} minutes", ["sudo shutdown -h +{k}"]),
        ("make a folder called {name} in {dir}", ["mkdir -p {dir}/{name}"]),
    ],
    "powershell": [
        ("stop {app}", ["Stop-Process -Name {proc} -Force"]), ("open {site}", ["Start-Process {url}"]),
        ("wait {n} seconds", ["Start-Sleep -Seconds {n}"]),
        ("list my {folder} folder", ["Get-ChildItem $HOME\\{folder}"]),
        ("ping {host}", ["Test-Connection {host} -Count {k}"]),
    ],
    "mac": [
        ("quit {app}", ["osascript -e 'quit app \"{mac}\"'", 'pkill -x "{mac}"']), ("open {app}", ['open -a "{mac}"']),
        ("open {site}", ["open {url}"]), ("wait {n} seconds", ["sleep {n}"]),
    ],
}
P_TEMPLATE = 0.6  # the share of command_tool rows drawn from TEMPLATES, else from COMMANDS
P_CHAIN = 0.12  # of those, two commands run one after the other ("A, then B": `a && b`; Windows and Linux)

# (how people say it, Windows image name, process name, macOS app name)
APPS = [("firefox", "firefox.exe", "firefox", "Firefox"), ("chrome", "chrome.exe", "chrome", "Google Chrome"),
        ("VS Code", "Code.exe", "code", "Visual Studio Code"), ("Spotify", "Spotify.exe", "spotify", "Spotify"),
        ("Slack", "slack.exe", "slack", "Slack"), ("Zoom", "Zoom.exe", "zoom", "zoom.us"),
        ("Excel", "EXCEL.EXE", "excel", "Microsoft Excel"), ("Word", "WINWORD.EXE", "winword", "Microsoft Word"),
        ("Outlook", "OUTLOOK.EXE", "outlook", "Microsoft Outlook"), ("Discord", "Discord.exe", "discord", "Discord"),
        ("Steam", "steam.exe", "steam", "Steam"), ("VLC", "vlc.exe", "vlc", "VLC"), ("OBS", "obs64.exe", "obs", "OBS"),
        ("Postman", "Postman.exe", "postman", "Postman"), ("Blender", "blender.exe", "blender", "Blender"),
        ("Teams", "ms-teams.exe", "teams", "Microsoft Teams"), ("the music player", "musicbee.exe", "rhythmbox",
                                                                  "Music")]
PACKAGES = [("requests", "2.31.0"), ("numpy", "1.26.4"), ("rich", "13.7.1"), ("httpx", "0.27.0"),
            ("pandas", "2.2.2"), ("flask", "3.0.3")]  # (name, a version it has)
WINDOWS_ONLY = {"excel", "winword", "outlook"}  # no Linux build: a Linux row never stops them
SITES = [("GitHub", "https://github.com"), ("the Python docs", "https://docs.python.org/3/"),
         ("Wikipedia", "https://www.wikipedia.org"), ("Hacker News", "https://news.ycombinator.com"),
         ("the team wiki", "https://wiki.example.com/start"), ("Stack Overflow", "https://stackoverflow.com"),
         ("the weather forecast", "https://www.weather.gov"), ("the MDN docs", "https://developer.mozilla.org"),
         ("the status page", "https://status.example.org"), ("my calendar", "https://calendar.example.com/me")]
SLOTS = {"folder": ["Desktop", "Documents", "Downloads", "Pictures", "Music", "Videos"],
         "file": ["notes.txt", "report.docx", "budget.xlsx", "photo.jpg", "setup.log", "data.csv", "todo.txt",
                  "Zoom.lnk", "old_draft.md", "invoice_0412.pdf"],
         "host": ["8.8.8.8", "1.1.1.1", "192.168.1.1", "192.168.0.20", "example.com", "github.com", "fileserver02",
                  "printer-3f"],
         "word": ["hello", "done", "ready", "backup finished", "build ok", "good morning"],
         "name": ["invoices", "photos_2025", "scratch", "api", "website", "backups", "tools"],
         "script": ["main.py", "app.py", "test.py", "train.py", "server.py"],
         "log": ["/var/log/syslog", "/var/log/nginx/error.log", "app.log", "logs/server.log"],
         "text": ["notes.txt", "setup.log", "data.csv", "todo.txt", "app.log", "README.md"],  # files grep reads
         "dir": ["/tmp", "~/projects", "/var/www", "src", "/etc/nginx", "build"],
         "branch": ["feature/search", "fix/login-timeout", "release/3.0", "docs-update"],
         "test": ["tests/test_api.py", "tests/", "tests/test_models.py::test_save"]}


def templated(shell: str, rng: random.Random) -> tuple[str, str]:
    """(purpose, command) from a template of the shell with every field drawn; the command never needs knowledge
    the request does not give, since the request shows it."""
    said, exe, proc, mac = rng.choice([a for a in APPS if shell != "linux" or a[2] not in WINDOWS_ONLY])
    pkg, version = rng.choice(PACKAGES)
    site, url = rng.choice(SITES)
    drive = rng.choice("CDEF")
    fields = {key: rng.choice(pool) for key, pool in SLOTS.items()}
    fields.update(app=said, exe=exe, proc=proc, mac=mac, site=site, url=url, D=drive, d=drive.lower(), pkg=pkg,
                  version=version,
                  n=rng.choice([5, 10, 15, 30, 45, 60, 90, 120, 300, 600, rng.randint(2, 3600)]),
                  k=rng.choice([2, 3, 4, 5, 10, 20, 50]))
    purpose, forms = rng.choice(TEMPLATES[shell])
    return purpose.format(**fields), rng.choice(forms).format(**fields)


def draw_command(shell: str, rng: random.Random) -> tuple[str, str]:
    """(purpose, command): from the fixed list or a template; a chain joins two with `&&` ("A, then B")."""
    if rng.random() >= P_TEMPLATE:
        return rng.choice(COMMANDS[shell])
    if shell in ("windows", "linux") and rng.random() < P_CHAIN:
        (p1, c1), (p2, c2) = rng.choice(COMMANDS[shell]), templated(shell, rng)
        if rng.random() < 0.5:
            (p1, c1), (p2, c2) = (p2, c2), (p1, c1)
        return f"{p1} and then {p2}", f"{c1} && {c2}"
    return templated(shell, rng)


NEAR_DOMAINS = {"computing", "devtools", "files"}  # catalogue domains whose tools could pass for a command runner

SHELL_WORDS = {"windows": ["the command prompt", "cmd", "the Windows command line"],
               "linux": ["the terminal", "bash", "the shell"], "powershell": ["PowerShell"],
               "mac": ["the terminal", "zsh"]}

# {p}: purpose, {c}: the command as the user writes it, {s}: a name for the shell
REQUESTS = ["{p}, using the command {c}", "{p} with {c}", "please run {c} to {p}", "can you {p}? use {c}",
            "{P}. The command is {c}", "run {c}", "execute {c} for me", "{P} by running {c} in {s}",
            "I want to {p}. Run {c} please", "{p} - just use {c}", "use {c} to {p}", "{P}: {c}"]


def _quoted(command: str, rng: random.Random) -> str:
    style = rng.random()
    if style < 0.45:
        return command
    if style < 0.8 or ('"' in command and "'" in command):  # quotes of both kinds: only backticks stay clear
        return f"`{command}`"
    return f'"{command}"' if '"' not in command else f"'{command}'"


def runner_spec(shell: str, rng: random.Random) -> dict:
    names, descriptions, command_text = SHELLS[shell]
    props = {"command": {"type": "string", "description": command_text}}
    for name, spec in rng.sample(OPTIONAL, rng.choice([0, 0, 1, 2])):
        props[name] = spec
    return {"type": "function", "function": {"name": rng.choice(names), "description": rng.choice(descriptions),
                                             "parameters": {"type": "object", "properties": props,
                                                            "required": ["command"]}}}


def request(purpose: str, command: str, shell: str, rng: random.Random) -> str:
    text = rng.choice(REQUESTS).format(p=purpose, P=purpose[0].upper() + purpose[1:], c=_quoted(command, rng),
                                       s=rng.choice(SHELL_WORDS[shell]))
    if rng.random() < 0.3:
        text = text[0].lower() + text[1:]  # people type commands lowercase and unpunctuated too
    elif not text.endswith((".", "?")) and not command.endswith((".", "\\", "/")) and rng.random() < 0.5:
        text += "."  # not after a path's slash, where "dir F:\." would be another command
    return text


def command_tool(rng: random.Random) -> tuple[dict, dict]:
    shell = rng.choices(list(COMMANDS), weights=[5, 4, 1, 1])[0]
    purpose, command = draw_command(shell, rng)
    spec = runner_spec(shell, rng)
    name = spec["function"]["name"]
    tools = [spec] + [t.spec() for t in others(rng, NEAR_DOMAINS, rng.choice([0, 0, 1, 2]))]
    rng.shuffle(tools)
    the_call = {"type": "function", "function": {"name": name, "arguments": {"command": command}}}
    msgs = start(rng) + [{"role": "user", "content": request(purpose, command, shell, rng)},
                         assistant_calls([the_call])]
    return {"messages": msgs, "tools": tools}, {"needs": [name], "shell": shell, "command": command}
