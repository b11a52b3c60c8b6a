<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>Format</name>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::RemoteHosts</name>
    <message>
        <source>Give the host a name, e.g. the machine&apos;s name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This computer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; always means this computer: choose another name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is already a host called %1: choose another name, or remove that one first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the command that reaches airlockd there, e.g. ssh devbox airlockctl proxy.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no remote host called %1; `airlockctl remote ls` lists them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no remote host called %1; add it with `airlockctl remote add %1 &apos;ssh HOST airlockctl proxy&apos;`.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::CheckpointScheduleFields</name>
    <message>
        <source>Automatic checkpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every 5 minutes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every 10 minutes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every 30 minutes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic checkpoints kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;keep the latest</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Every %n second(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>airlock::ui::ConnectionBanner</name>
    <message>
        <source>&amp;Retry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd&apos;s output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide &amp;details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connecting to airlockd at %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No airlockd was running; starting %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not connected: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::DaemonConnection</name>
    <message>
        <source>airlockd answered but its status failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection to airlockd was lost: the daemon stopped or restarted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Airlock reconnects as soon as airlockd is back. Start it again with `airlockd`, or press Retry to let Airlock start it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Permission denied on %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd admits root and members of the airlock group: run `sudo adduser $USER airlock`, log out and in again, then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd was not found next to airlock nor in PATH: install it, or start it yourself, then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start airlockd, or press Retry to let Airlock start it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not start airlockd (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check that airlockd is installed and executable, then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read airlockd&apos;s message below, fix what it names, then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>libvirtd seems to be down or unreachable: start it (`sudo systemctl start libvirtd`), then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another airlockd serves this data directory on another socket: use that socket (--socket), or stop it, then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd lacks a permission (libvirt group, CAP_NET_ADMIN or its data directory): see below, then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd failed to start (exit code %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd printed nothing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start airlockd (run `airlockd`, or `sudo systemctl start airlockd` where it is installed as a service), then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Look at airlockd&apos;s log (an airlockd of another version may speak differently), then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot reach airlockd through `%1`: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check that this command works in a terminal (ssh access to the host, airlockctl installed there and you in its airlock group), then press Retry.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::DecisionBar</name>
    <message>
        <source>&amp;Allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Let this connection through (Alt+A)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refuse this connection; the agent sees who blocked it (Alt+D)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>just once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>for 10 minutes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>for 1 hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forever</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in this sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in all sandboxes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lifetime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 → %2:%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a pending or denied attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not decide: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Process (reported by the guest)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the guest&apos;s helper reports: the guest could lie, so no rule uses it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>until the sandbox stops</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>raw TCP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw TCP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Let this host and port carry bytes that are neither TLS nor HTTP for it (only for a lasting rule on the host or IP)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only this host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its whole domain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The registrable domain of %1 and every name below it (e.g. *.bbc.co.uk for www.bbc.co.uk), as airlockd reads the Public Suffix List</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only this IP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only this request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 on %2, as a rule of requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the whole host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly %1, whatever the method and path</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::DestinationModel</name>
    <message>
        <source>IP addresses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>port %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Destination</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Received</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last decision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rule / reason</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::EgressChart</name>
    <message>
        <source>Attempts per minute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::EgressModel</name>
    <message>
        <source>allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 to %2 (%3) port %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS name: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rule / reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rule #%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dropped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (×%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Process (reported by the guest)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rule: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes: ↑ %1  ↓ %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::ExportDialog</name>
    <message>
        <source>Export changes from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Brings the commits made in the sandbox&apos;s /workspace since it started back to this computer, for you to review and apply. Your repository is not touched.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Git bundle (fetch from it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Patch series (git am)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Destination</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save to:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the bundle as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Git bundles (*.bundle)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An empty directory for the patches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Say where to save the export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was exported: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review: git fetch %1 %2, then git log -p HEAD..FETCH_HEAD; apply: git merge FETCH_HEAD.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review the files, then apply in your repository: git am %1/*.patch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported 1 commit to %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported %1 commits to %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Uncommitted changes in the sandbox (%1 files) were not exported: commit them there first.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::ImageBuildDialog</name>
    <message>
        <source>Build image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A recipe in resources/images, e.g. tiny or agents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Recipe:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same as the recipe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image &amp;name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Build</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Cancel build</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name a recipe to build, e.g. tiny.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>starting %p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image %1 is ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image %1 was not built: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling the build of %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not cancel: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::ImageImportDialog</name>
    <message>
        <source>Import image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. mynode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image &amp;name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OCI layout directory (skopeo copy … oci:DIR, podman save --format oci-dir)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Docker archive file (docker save, podman save)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;From:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DIR or FILE; add :TAG to pick one image of several</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Path:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OCI layout directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Docker archive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archives (*.tar);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the image a name and say where it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>uploading %p%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Importing %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image %1 is ready: choose it in New sandbox.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image %1 was not imported: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dockerfile (built offline; its folder is the build context)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dev container (a project folder with .devcontainer/devcontainer.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dockerfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its ENV and WORKDIR hold in the sandbox; the console runs its ENTRYPOINT and CMD as its USER. Airlock&apos;s guest side is added in /.airlock; nothing of an image runs on this computer, except a Dockerfile&apos;s RUN steps, in containers without network.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::JobStatus</name>
    <message>
        <source>done</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::MainWindow</name>
    <message>
        <source>Airlock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Terminal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sna&amp;pshots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;ecrets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a sandbox to see its console, network, snapshots and secrets.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending requests (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New sandbox…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Kill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;move…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Vault</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Unlock…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Lock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not lock the vault: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Create…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change &amp;passphrase…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Secrets…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Airlock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Airlock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Airlock %1
AI coding agents in microVMs, with every network connection approved live and secrets lent through a host proxy.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected to airlockd</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting airlockd…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not connected: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>libvirt %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ TCG emulation: no usable KVM, VMs run slowly</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes run under QEMU&apos;s TCG emulation because KVM is not usable on this host. They work, but boot and run several times slower.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KVM acceleration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>vault unlocked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>vault locked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no vault yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n sandbox(es)</source>
        <translation>
            <numerusform>%n sandbox</numerusform>
            <numerusform>%n sandboxes</numerusform>
        </translation>
    </message>
    <message>
        <source>Alert from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd cannot manage sandboxes yet (sandbox.list is not available).
Update airlockd to create and run sandboxes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No sandboxes yet.
Create one with File → New sandbox (Ctrl+N).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove %1 with its disk and snapshots? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 failed for %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settin&amp;gs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vie&amp;w</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Build image…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport changes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bring the sandbox&apos;s new commits in /workspace back as a bundle or patches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This computer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add remote host…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove this host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — Airlock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected to airlockd on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P&amp;orts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No browser could be started; open %1 yourself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import image…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Allow the selected request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Deny the selected request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Next pending request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Watch layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The terminal and the live attempts side by side, pending requests above them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run agent on a folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The project the agent works on (a git repository)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run an agent on %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::NetworkView</name>
    <message>
        <source>Search host, IP, path, rule…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load &amp;older</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s)</source>
        <translation>
            <numerusform>%n attempt</numerusform>
            <numerusform>%n attempts</numerusform>
        </translation>
    </message>
    <message>
        <source>This airlockd does not record egress attempts yet (egress.list is not available).
Update airlockd; attempts appear here as they happen.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not load attempts: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every attempt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>By destination</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The flat list, newest first, or the attempts grouped by domain, host and port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts by destination</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::NewSandboxDialog</name>
    <message>
        <source>New sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. agent-1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secrets to lend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Start it now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Template:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Image:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;CPUs:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Memory:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Disk:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;ecrets:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;reate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no secrets available)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the sandbox a name: lower-case letters, digits and &apos;-&apos;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not create the sandbox: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None (a plain sandbox)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None: ask for every host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;gress preset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: an empty sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A git repository on this computer. Its commits are copied into the sandbox&apos;s /workspace as a git bundle (never shared or mounted); uncommitted changes stay here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace repository</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd offers no presets: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allows %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling: removing the sandbox again…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a git repository</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating the sandbox and copying %1 into it…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;phemeral: removed, disk and all, once it stops</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing of it is kept after it stops, not even snapshots. Take its commits before you stop it (Sandbox &gt; Export changes…).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset &amp;values:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>While it runs, Airlock checkpoints it (memory and disk) this often and keeps the latest few: a timeline on the Snapshots tab to go back in, with the agent still running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic c&amp;heckpoints:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::PendingModel</name>
    <message numerus="yes">
        <source>deny in %n s</source>
        <translation>
            <numerusform>deny in %n s</numerusform>
            <numerusform>deny in %n s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 wants to reach %2 (%3) on port %4. Without an answer it is denied in %n s.</source>
        <translation>
            <numerusform>%1 wants to reach %2 (%3) on port %4. Without an answer it is denied in %n s.</numerusform>
            <numerusform>%1 wants to reach %2 (%3) on port %4. Without an answer it is denied in %n s.</numerusform>
        </translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host:port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waits for you</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 wants to reach %2 (%3) on port %4. It waits until you answer.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::PendingPanel</name>
    <message>
        <source>No connection is waiting for a decision.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending requests</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::PolicyButton</name>
    <message>
        <source>&amp;Policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save this session&apos;s decisions…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export this sandbox&apos;s rules…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a policy…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a policy into %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the rules of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the decisions of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No policy was saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Saved %n rule(s) to %1.</source>
        <translation>
            <numerusform>Saved %n rule to %1.</numerusform>
            <numerusform>Saved %n rules to %1.</numerusform>
        </translation>
    </message>
    <message>
        <source>Left out %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the global rules…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a policy into the global rules…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the global rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a policy into the global rules</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::PolicyImportDialog</name>
    <message>
        <source>Import a policy into %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applying…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applied: %1 added, %2 removed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  (rule %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>says the opposite of the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>already there</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) say the opposite of the file (!): tick Replace to make the file&apos;s rules the only lasting ones, or remove those rules first.</source>
        <translation>
            <numerusform>%n rule says the opposite of the file (!): tick Replace to make the file&apos;s rules the only lasting ones, or remove that rule first.</numerusform>
            <numerusform>%n rules say the opposite of the file (!): tick Replace to make the file&apos;s rules the only lasting ones, or remove those rules first.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 to add, %2 to remove, %3 already there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the global rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sandbox %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; into &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;Read every change before you apply it: a policy file in a project is something the agent could have edited.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Replace: remove the lasting global rules that the file does not have</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Replace: remove the lasting rules of %1 that the file does not have</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to change: every rule of the file is already in %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::PortsModel</name>
    <message>
        <source>Listening</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandbox stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not listening: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 to the guest, %2 back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only this machine reaches it; the guest gets no way out through it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Guest port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reached at</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Traffic</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::PortsView</name>
    <message>
        <source>A port the agent serves in the guest (a dev server, say), reached from this machine only. The guest gets no way out through it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Guest port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same, or any free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xpose</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Guest port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>on &amp;host port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exposed ports</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open in browser</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd does not expose ports; update it to use this tab.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not list the ports: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not expose the port: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port %1 of %2 is reached at %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port %1 of %2 will be reached at %3 once it runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not remove the port: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port %1 of %2 is no longer reached</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::RemoteHostDialog</name>
    <message>
        <source>Add remote host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Airlock talks to the airlockd of another machine over ssh. That machine needs airlockd running and airlockctl installed; your ssh user must be allowed to use it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>user@devbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;SSH destination:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add host</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::RequestNotices</name>
    <message>
        <source>%1 wants to connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 on %2 port %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 port %2 (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The guest says: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It waits until you answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied in %1 s unless you allow it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not decide: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed %1 once, from the notification.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied %1 once, from the notification.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::RequestNotifications</name>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny once</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::SandboxModel</name>
    <message numerus="yes">
        <source>%n CPU(s)</source>
        <translation>
            <numerusform>%n CPU</numerusform>
            <numerusform>%n CPUs</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n connection request(s) wait for your decision</source>
        <translation>
            <numerusform>%n connection request waits for your decision</numerusform>
            <numerusform>%n connection requests wait for your decision</numerusform>
        </translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Uptime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU / Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused (host disk full)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused (host disk error)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::SecretsDialog</name>
    <message>
        <source>Secrets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Header</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Used by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set a secret (the value can never be read back)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>api.example.com, *.example.org</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Hosts:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hea&amp;der:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd has no vault yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A secret needs a name, at least one host and a value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not remove: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign-in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expires</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign an agent in (its tokens stay in the vault; the guest gets placeholders)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign &amp;in…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting the sign-in sandbox %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not start the sign-in: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs the agent&apos;s sign-in in a throw-away sandbox whose terminal opens in the main window. Open the address it shows in your browser and do what it asks (paste the code the page gives back, or enter the code it shows); stop the sandbox when it is done. Every later sandbox of the template starts signed in.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::SecretsView</name>
    <message>
        <source>Secrets lent to this sandbox. The guest only sees a placeholder; the broker puts the real value into requests to the listed hosts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bound secrets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Manage secrets…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd has no vault yet (secret.list is not available).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sent as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expires</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in the %1 sign-in&apos;s token requests</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::SettingsView</name>
    <message>
        <source>Resources</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress rules of this sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Action</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expires</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add rule…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image: %1
CPUs: %2
Memory: %3 MiB
Address: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd has no egress rules yet (rule.list is not available).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not list rules: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add egress rule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>api.example.com, *.example.com or 203.0.113.0/24</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Action:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Host:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not add the rule: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not remove the rule: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Exported %n rule(s) to %1.</source>
        <translation>
            <numerusform>Exported %n rule to %1.</numerusform>
            <numerusform>Exported %n rules to %1.</numerusform>
        </translation>
    </message>
    <message>
        <source>Import rules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a JSON array of rules (%2). Export rules first to see the format.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an array</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A rule was refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw TCP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>raw TCP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Raw TCP: this host and port may carry bytes that are neither TLS nor HTTP for it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The broker cannot check what such bytes say; only one host or IP and one port may be opened so</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::SnapshotsView</name>
    <message>
        <source>&amp;Take snapshot…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Restore</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Fork…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>De&amp;lete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Snapshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Taken</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Snapshot tree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd has no snapshots yet (snapshot.list is not available).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not list snapshots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no label)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>← current</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take snapshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Label (optional):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Snapshot taken.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not take the snapshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restore snapshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is running. Restoring stops it and discards every change since this snapshot. Restore?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restored.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not restore</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fork snapshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the new sandbox:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forked into %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not fork</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Snapshot %1 deleted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not delete the snapshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic &amp;checkpoints:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not change the automatic checkpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the automatic checkpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(automatic)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checkpoint, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>disk only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disk, memory and devices: a restore resumes its processes where they were</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disk only: a restore boots from these files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Label (optional). Its running processes are saved too: a restore resumes them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is running. Restoring resumes it as it was at this checkpoint, its processes included, and discards every change since. Restore?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forking into %1: it resumes from the checkpoint…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forked into %1: it runs on from the checkpoint at its own address.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::TerminalView</name>
    <message>
        <source>Console of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Typing did not reach the console: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd has no consoles yet (console.attach is not available).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No console: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::VaultDialog</name>
    <message>
        <source>&amp;Current passphrase:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Passphrase:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New passphrase:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Repeat it:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create the vault</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The vault keeps your secrets encrypted on this machine. Choose a passphrase; without it the secrets cannot be recovered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;reate vault</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unlock the vault</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes can use their secrets only while the vault is unlocked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Unlock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change the vault passphrase</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The secrets stay as they are; only the passphrase that unlocks them changes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use at least %1 characters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The two passphrases differ; type them again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Working…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This airlockd has no vault yet.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>airlock::ui::WatchLayout</name>
    <message>
        <source>&amp;Watch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The terminal and the live attempts of this sandbox side by side (View &gt; Watch layout)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Airlock: AI coding agents in microVMs, every connection approved by you.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>airlockd&apos;s socket (default: $AIRLOCK_SOCKET, else %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do not start airlockd when none is running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select this sandbox once connected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open this tab: terminal, network, snapshots, ports, secrets or settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect to this remote host (default: $AIRLOCK_REMOTE, else the one `airlockctl remote use` chose; local: this computer).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
