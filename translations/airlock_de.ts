<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>Format</name>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 min</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 T %2 h</translation>
    </message>
</context>
<context>
    <name>airlock::RemoteHosts</name>
    <message>
        <source>Give the host a name, e.g. the machine&apos;s name.</source>
        <translation>Geben Sie dem Rechner einen Namen, z. B. den Namen der Maschine.</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>Dieser Computer</translation>
    </message>
    <message>
        <source>&quot;%1&quot; always means this computer: choose another name.</source>
        <translation>„%1“ bedeutet immer diesen Computer: Wählen Sie einen anderen Namen.</translation>
    </message>
    <message>
        <source>There is already a host called %1: choose another name, or remove that one first.</source>
        <translation>Es gibt bereits einen Rechner namens %1: Wählen Sie einen anderen Namen oder entfernen Sie zuerst diesen.</translation>
    </message>
    <message>
        <source>Give the command that reaches airlockd there, e.g. ssh devbox airlockctl proxy.</source>
        <translation>Geben Sie den Befehl an, der airlockd dort erreicht, z. B. ssh devbox airlockctl proxy.</translation>
    </message>
    <message>
        <source>There is no remote host called %1; `airlockctl remote ls` lists them.</source>
        <translation>Es gibt keinen entfernten Rechner namens %1; `airlockctl remote ls` listet sie auf.</translation>
    </message>
    <message>
        <source>There is no remote host called %1; add it with `airlockctl remote add %1 &apos;ssh HOST airlockctl proxy&apos;`.</source>
        <translation>Es gibt keinen entfernten Rechner namens %1; fügen Sie ihn mit `airlockctl remote add %1 &apos;ssh HOST airlockctl proxy&apos;` hinzu.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::CheckpointScheduleFields</name>
    <message>
        <source>Automatic checkpoints</source>
        <translation>Automatische Checkpoints</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>Every 5 minutes</source>
        <translation>Alle 5 Minuten</translation>
    </message>
    <message>
        <source>Every 10 minutes</source>
        <translation>Alle 10 Minuten</translation>
    </message>
    <message>
        <source>Every 30 minutes</source>
        <translation>Alle 30 Minuten</translation>
    </message>
    <message>
        <source>Every hour</source>
        <translation>Jede Stunde</translation>
    </message>
    <message>
        <source>Automatic checkpoints kept</source>
        <translation>Behaltene automatische Checkpoints</translation>
    </message>
    <message>
        <source>&amp;keep the latest</source>
        <translation>die neuesten &amp;behalten</translation>
    </message>
    <message numerus="yes">
        <source>Every %n second(s)</source>
        <translation>
            <numerusform>Jede %n Sekunde</numerusform>
            <numerusform>Alle %n Sekunden</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>airlock::ui::ConnectionBanner</name>
    <message>
        <source>&amp;Retry</source>
        <translation>&amp;Erneut versuchen</translation>
    </message>
    <message>
        <source>Show &amp;details</source>
        <translation>&amp;Details zeigen</translation>
    </message>
    <message>
        <source>airlockd&apos;s output</source>
        <translation>Ausgabe von airlockd</translation>
    </message>
    <message>
        <source>Hide &amp;details</source>
        <translation>&amp;Details verbergen</translation>
    </message>
    <message>
        <source>Connecting to airlockd at %1…</source>
        <translation>Verbinde mit airlockd unter %1 …</translation>
    </message>
    <message>
        <source>No airlockd was running; starting %1…</source>
        <translation>Kein airlockd lief; starte %1 …</translation>
    </message>
    <message>
        <source>Not connected: %1</source>
        <translation>Nicht verbunden: %1</translation>
    </message>
</context>
<context>
    <name>airlock::ui::DaemonConnection</name>
    <message>
        <source>airlockd answered but its status failed: %1</source>
        <translation>airlockd antwortet, aber sein Status schlug fehl: %1</translation>
    </message>
    <message>
        <source>The connection to airlockd was lost: the daemon stopped or restarted.</source>
        <translation>Die Verbindung zu airlockd ist abgebrochen: Der Dienst wurde beendet oder neu gestartet.</translation>
    </message>
    <message>
        <source>Airlock reconnects as soon as airlockd is back. Start it again with `airlockd`, or press Retry to let Airlock start it.</source>
        <translation>Airlock verbindet sich neu, sobald airlockd wieder läuft. Starten Sie ihn mit `airlockd` oder klicken Sie auf „Erneut versuchen“, damit Airlock ihn startet.</translation>
    </message>
    <message>
        <source>Permission denied on %1.</source>
        <translation>Zugriff auf %1 verweigert.</translation>
    </message>
    <message>
        <source>airlockd admits root and members of the airlock group: run `sudo adduser $USER airlock`, log out and in again, then press Retry.</source>
        <translation>airlockd lässt root und Mitglieder der Gruppe airlock zu: Führen Sie `sudo adduser $USER airlock` aus, melden Sie sich neu an und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>airlockd was not found next to airlock nor in PATH: install it, or start it yourself, then press Retry.</source>
        <translation>airlockd wurde weder neben airlock noch im PATH gefunden: Installieren oder starten Sie ihn selbst und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>Start airlockd, or press Retry to let Airlock start it.</source>
        <translation>Starten Sie airlockd oder klicken Sie auf „Erneut versuchen“, damit Airlock ihn startet.</translation>
    </message>
    <message>
        <source>Could not start airlockd (%1): %2</source>
        <translation>airlockd (%1) konnte nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>Check that airlockd is installed and executable, then press Retry.</source>
        <translation>Prüfen Sie, ob airlockd installiert und ausführbar ist, und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>Read airlockd&apos;s message below, fix what it names, then press Retry.</source>
        <translation>Lesen Sie die Meldung von airlockd unten, beheben Sie das Genannte und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>libvirtd seems to be down or unreachable: start it (`sudo systemctl start libvirtd`), then press Retry.</source>
        <translation>libvirtd scheint nicht zu laufen oder ist nicht erreichbar: Starten Sie ihn (`sudo systemctl start libvirtd`) und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>Another airlockd serves this data directory on another socket: use that socket (--socket), or stop it, then press Retry.</source>
        <translation>Ein anderer airlockd bedient dieses Datenverzeichnis über einen anderen Socket: Verwenden Sie diesen Socket (--socket) oder beenden Sie ihn und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>airlockd lacks a permission (libvirt group, CAP_NET_ADMIN or its data directory): see below, then press Retry.</source>
        <translation>airlockd fehlt eine Berechtigung (Gruppe libvirt, CAP_NET_ADMIN oder sein Datenverzeichnis): siehe unten, dann „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>airlockd failed to start (exit code %1).</source>
        <translation>airlockd konnte nicht starten (Exit-Code %1).</translation>
    </message>
    <message>
        <source>airlockd printed nothing.</source>
        <translation>airlockd hat nichts ausgegeben.</translation>
    </message>
    <message>
        <source>Start airlockd (run `airlockd`, or `sudo systemctl start airlockd` where it is installed as a service), then press Retry.</source>
        <translation>Starten Sie airlockd (`airlockd`, oder `sudo systemctl start airlockd`, wo er als Dienst installiert ist) und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>Look at airlockd&apos;s log (an airlockd of another version may speak differently), then press Retry.</source>
        <translation>Sehen Sie im Protokoll von airlockd nach (ein airlockd einer anderen Version spricht vielleicht anders) und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
    <message>
        <source>Cannot reach airlockd through `%1`: %2</source>
        <translation>airlockd ist über `%1` nicht erreichbar: %2</translation>
    </message>
    <message>
        <source>Check that this command works in a terminal (ssh access to the host, airlockctl installed there and you in its airlock group), then press Retry.</source>
        <translation>Prüfen Sie, ob dieser Befehl in einem Terminal funktioniert (ssh-Zugang zum Rechner, airlockctl dort installiert und Sie in dessen Gruppe airlock), und klicken Sie dann auf „Erneut versuchen“.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::DecisionBar</name>
    <message>
        <source>&amp;Allow</source>
        <translation>&amp;Erlauben</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>&amp;Verweigern</translation>
    </message>
    <message>
        <source>Let this connection through (Alt+A)</source>
        <translation>Diese Verbindung durchlassen (Alt+E)</translation>
    </message>
    <message>
        <source>Refuse this connection; the agent sees who blocked it (Alt+D)</source>
        <translation>Diese Verbindung ablehnen; der Agent sieht, wer sie blockiert hat (Alt+V)</translation>
    </message>
    <message>
        <source>just once</source>
        <translation>nur einmal</translation>
    </message>
    <message>
        <source>for 10 minutes</source>
        <translation>für 10 Minuten</translation>
    </message>
    <message>
        <source>for 1 hour</source>
        <translation>für 1 Stunde</translation>
    </message>
    <message>
        <source>forever</source>
        <translation>für immer</translation>
    </message>
    <message>
        <source>in this sandbox</source>
        <translation>in dieser Sandbox</translation>
    </message>
    <message>
        <source>in all sandboxes</source>
        <translation>in allen Sandboxen</translation>
    </message>
    <message>
        <source>Lifetime</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Match</source>
        <translation>Treffer</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>Geltungsbereich</translation>
    </message>
    <message>
        <source>%1 → %2:%3</source>
        <translation>%1 → %2:%3</translation>
    </message>
    <message>
        <source>Select a pending or denied attempt</source>
        <translation>Wählen Sie einen wartenden oder verweigerten Versuch</translation>
    </message>
    <message>
        <source>Could not decide: %1</source>
        <translation>Entscheidung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Process (reported by the guest)</source>
        <translation>Prozess (vom Gast gemeldet)</translation>
    </message>
    <message>
        <source>What the guest&apos;s helper reports: the guest could lie, so no rule uses it</source>
        <translation>Was der Helfer im Gast meldet: Der Gast könnte lügen, daher verwendet keine Regel diese Angabe</translation>
    </message>
    <message>
        <source>until the sandbox stops</source>
        <translation>bis die Sandbox stoppt</translation>
    </message>
    <message>
        <source>raw TCP</source>
        <translation>rohes TCP</translation>
    </message>
    <message>
        <source>Raw TCP</source>
        <translation>Rohes TCP</translation>
    </message>
    <message>
        <source>Let this host and port carry bytes that are neither TLS nor HTTP for it (only for a lasting rule on the host or IP)</source>
        <translation>Diesem Host und Port Bytes erlauben, die für ihn weder TLS noch HTTP sind (nur für eine dauerhafte Regel auf Host oder IP)</translation>
    </message>
    <message>
        <source>only this host</source>
        <translation>nur dieser Host</translation>
    </message>
    <message>
        <source>Exactly %1</source>
        <translation>Genau %1</translation>
    </message>
    <message>
        <source>its whole domain</source>
        <translation>die ganze Domain</translation>
    </message>
    <message>
        <source>The registrable domain of %1 and every name below it (e.g. *.bbc.co.uk for www.bbc.co.uk), as airlockd reads the Public Suffix List</source>
        <translation>Die registrierbare Domain von %1 und jeder Name darunter (z. B. *.bbc.co.uk für www.bbc.co.uk), wie airlockd die Public Suffix List liest</translation>
    </message>
    <message>
        <source>only this IP</source>
        <translation>nur diese IP</translation>
    </message>
    <message>
        <source>Allowed</source>
        <translation type="unfinished">Erlaubt</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished">Verweigert</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished">%1: %2</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>Anfrage</translation>
    </message>
    <message>
        <source>only this request</source>
        <translation>nur diese Anfrage</translation>
    </message>
    <message>
        <source>%1 on %2, as a rule of requests</source>
        <translation>%1 auf %2, als Regel für Anfragen</translation>
    </message>
    <message>
        <source>the whole host</source>
        <translation>den ganzen Host</translation>
    </message>
    <message>
        <source>Exactly %1, whatever the method and path</source>
        <translation>Genau %1, gleich welche Methode und welcher Pfad</translation>
    </message>
</context>
<context>
    <name>airlock::ui::DestinationModel</name>
    <message>
        <source>IP addresses</source>
        <translation>IP-Adressen</translation>
    </message>
    <message>
        <source>port %1</source>
        <translation>Port %1</translation>
    </message>
    <message>
        <source>Destination</source>
        <translation type="unfinished">Ziel</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation type="unfinished">Versuche</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation type="unfinished">Verweigert</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>Gesendet</translation>
    </message>
    <message>
        <source>Received</source>
        <translation>Empfangen</translation>
    </message>
    <message>
        <source>Last decision</source>
        <translation>Letzte Entscheidung</translation>
    </message>
    <message>
        <source>Rule / reason</source>
        <translation type="unfinished">Regel / Grund</translation>
    </message>
</context>
<context>
    <name>airlock::ui::EgressChart</name>
    <message>
        <source>Attempts per minute</source>
        <translation>Versuche pro Minute</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>erlaubt</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>verweigert</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>wartet</translation>
    </message>
</context>
<context>
    <name>airlock::ui::EgressModel</name>
    <message>
        <source>allowed</source>
        <translation>erlaubt</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>verweigert</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>wartet</translation>
    </message>
    <message>
        <source>%1 to %2 (%3) port %4</source>
        <translation>%1 zu %2 (%3) Port %4</translation>
    </message>
    <message>
        <source>TLS name: %1</source>
        <translation>TLS-Name: %1</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Entscheidung</translation>
    </message>
    <message>
        <source>Rule / reason</source>
        <translation>Regel / Grund</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>Anfrage</translation>
    </message>
    <message>
        <source>rule #%1</source>
        <translation>Regel #%1</translation>
    </message>
    <message>
        <source>dropped</source>
        <translation>verworfen</translation>
    </message>
    <message>
        <source>%1 (×%2)</source>
        <translation>%1 (×%2)</translation>
    </message>
    <message>
        <source>Process (reported by the guest)</source>
        <translation>Prozess (vom Gast gemeldet)</translation>
    </message>
    <message>
        <source>Rule: %1</source>
        <translation>Regel: %1</translation>
    </message>
    <message>
        <source>Bytes: ↑ %1  ↓ %2</source>
        <translation>Bytes: ↑ %1  ↓ %2</translation>
    </message>
</context>
<context>
    <name>airlock::ui::ExportDialog</name>
    <message>
        <source>Export changes from %1</source>
        <translation>Änderungen aus %1 exportieren</translation>
    </message>
    <message>
        <source>Brings the commits made in the sandbox&apos;s /workspace since it started back to this computer, for you to review and apply. Your repository is not touched.</source>
        <translation>Holt die Commits, die seit dem Start im /workspace der Sandbox entstanden sind, auf diesen Rechner, damit Sie sie prüfen und übernehmen. Ihr Repository bleibt unberührt.</translation>
    </message>
    <message>
        <source>Git bundle (fetch from it)</source>
        <translation>Git-Bundle (daraus fetchen)</translation>
    </message>
    <message>
        <source>Patch series (git am)</source>
        <translation>Patch-Serie (git am)</translation>
    </message>
    <message>
        <source>Destination</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>&amp;Durchsuchen …</translation>
    </message>
    <message>
        <source>&amp;Format:</source>
        <translation>&amp;Format:</translation>
    </message>
    <message>
        <source>&amp;Save to:</source>
        <translation>Speichern &amp;unter:</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>&amp;Exportieren</translation>
    </message>
    <message>
        <source>Save the bundle as</source>
        <translation>Bundle speichern unter</translation>
    </message>
    <message>
        <source>Git bundles (*.bundle)</source>
        <translation>Git-Bundles (*.bundle)</translation>
    </message>
    <message>
        <source>An empty directory for the patches</source>
        <translation>Ein leeres Verzeichnis für die Patches</translation>
    </message>
    <message>
        <source>Say where to save the export.</source>
        <translation>Geben Sie an, wohin exportiert werden soll.</translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation>Exportiere …</translation>
    </message>
    <message>
        <source>Nothing was exported: %1</source>
        <translation>Nichts wurde exportiert: %1</translation>
    </message>
    <message>
        <source>Review: git fetch %1 %2, then git log -p HEAD..FETCH_HEAD; apply: git merge FETCH_HEAD.</source>
        <translation>Prüfen: git fetch %1 %2, dann git log -p HEAD..FETCH_HEAD; übernehmen: git merge FETCH_HEAD.</translation>
    </message>
    <message>
        <source>Review the files, then apply in your repository: git am %1/*.patch</source>
        <translation>Prüfen Sie die Dateien und übernehmen Sie sie in Ihrem Repository: git am %1/*.patch</translation>
    </message>
    <message>
        <source>Exported 1 commit to %1.</source>
        <translation>1 Commit nach %1 exportiert.</translation>
    </message>
    <message>
        <source>Exported %1 commits to %2.</source>
        <translation>%1 Commits nach %2 exportiert.</translation>
    </message>
    <message>
        <source>Uncommitted changes in the sandbox (%1 files) were not exported: commit them there first.</source>
        <translation>Nicht committete Änderungen in der Sandbox (%1 Dateien) wurden nicht exportiert: committen Sie sie zuerst dort.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::ImageBuildDialog</name>
    <message>
        <source>Build image</source>
        <translation>Abbild bauen</translation>
    </message>
    <message>
        <source>A recipe in resources/images, e.g. tiny or agents</source>
        <translation>Ein Rezept in resources/images, z. B. tiny oder agents</translation>
    </message>
    <message>
        <source>&amp;Recipe:</source>
        <translation>&amp;Rezept:</translation>
    </message>
    <message>
        <source>same as the recipe</source>
        <translation>wie das Rezept</translation>
    </message>
    <message>
        <source>Image &amp;name:</source>
        <translation type="unfinished">Image-&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Build</source>
        <translation>&amp;Bauen</translation>
    </message>
    <message>
        <source>&amp;Cancel build</source>
        <translation>Bau a&amp;bbrechen</translation>
    </message>
    <message>
        <source>Name a recipe to build, e.g. tiny.</source>
        <translation>Nennen Sie ein Rezept zum Bauen, z. B. tiny.</translation>
    </message>
    <message>
        <source>starting %p%</source>
        <translation>starte %p%</translation>
    </message>
    <message>
        <source>Building %1…</source>
        <translation>Baue %1 …</translation>
    </message>
    <message>
        <source>Image %1 is ready.</source>
        <translation>Abbild %1 ist fertig.</translation>
    </message>
    <message>
        <source>Image %1 was not built: %2</source>
        <translation>Abbild %1 wurde nicht gebaut: %2</translation>
    </message>
    <message>
        <source>Cancelling the build of %1…</source>
        <translation>Breche den Bau von %1 ab …</translation>
    </message>
    <message>
        <source>Could not cancel: %1</source>
        <translation>Abbrechen fehlgeschlagen: %1</translation>
    </message>
</context>
<context>
    <name>airlock::ui::ImageImportDialog</name>
    <message>
        <source>Import image</source>
        <translation>Image importieren</translation>
    </message>
    <message>
        <source>e.g. mynode</source>
        <translation>z. B. mynode</translation>
    </message>
    <message>
        <source>Image &amp;name:</source>
        <translation>Image-&amp;Name:</translation>
    </message>
    <message>
        <source>OCI layout directory (skopeo copy … oci:DIR, podman save --format oci-dir)</source>
        <translation>OCI-Layout-Verzeichnis (skopeo copy … oci:DIR, podman save --format oci-dir)</translation>
    </message>
    <message>
        <source>Docker archive file (docker save, podman save)</source>
        <translation>Docker-Archivdatei (docker save, podman save)</translation>
    </message>
    <message>
        <source>&amp;From:</source>
        <translation>&amp;Quelle:</translation>
    </message>
    <message>
        <source>DIR or FILE; add :TAG to pick one image of several</source>
        <translation>VERZEICHNIS oder DATEI; :TAG wählt eines von mehreren Images</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation type="unfinished">&amp;Durchsuchen …</translation>
    </message>
    <message>
        <source>&amp;Path:</source>
        <translation>&amp;Pfad:</translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation>&amp;Importieren</translation>
    </message>
    <message>
        <source>OCI layout directory</source>
        <translation>OCI-Layout-Verzeichnis</translation>
    </message>
    <message>
        <source>Docker archive</source>
        <translation>Docker-Archiv</translation>
    </message>
    <message>
        <source>Archives (*.tar);;All files (*)</source>
        <translation>Archive (*.tar);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Give the image a name and say where it is.</source>
        <translation>Geben Sie dem Image einen Namen und sagen Sie, wo es liegt.</translation>
    </message>
    <message>
        <source>uploading %p%</source>
        <translation>wird hochgeladen %p%</translation>
    </message>
    <message>
        <source>Importing %1…</source>
        <translation>%1 wird importiert…</translation>
    </message>
    <message>
        <source>Image %1 is ready: choose it in New sandbox.</source>
        <translation>Image %1 ist bereit: wählen Sie es unter „Neue Sandbox“.</translation>
    </message>
    <message>
        <source>Image %1 was not imported: %2</source>
        <translation>Image %1 wurde nicht importiert: %2</translation>
    </message>
    <message>
        <source>Dockerfile (built offline; its folder is the build context)</source>
        <translation>Dockerfile (offline gebaut; sein Ordner ist der Build-Kontext)</translation>
    </message>
    <message>
        <source>Dev container (a project folder with .devcontainer/devcontainer.json)</source>
        <translation>Dev-Container (ein Projektordner mit .devcontainer/devcontainer.json)</translation>
    </message>
    <message>
        <source>Dockerfile</source>
        <translation>Dockerfile</translation>
    </message>
    <message>
        <source>Project folder</source>
        <translation>Projektordner</translation>
    </message>
    <message>
        <source>Its ENV and WORKDIR hold in the sandbox; the console runs its ENTRYPOINT and CMD as its USER. Airlock&apos;s guest side is added in /.airlock; nothing of an image runs on this computer, except a Dockerfile&apos;s RUN steps, in containers without network.</source>
        <translation>Seine ENV und WORKDIR gelten in der Sandbox; die Konsole führt seinen ENTRYPOINT und CMD als seinen USER aus. Airlocks Gastseite kommt nach /.airlock; nichts von einem Image läuft auf diesem Computer, außer den RUN-Schritten eines Dockerfiles, in Containern ohne Netzwerk.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::JobStatus</name>
    <message>
        <source>done</source>
        <translation type="unfinished">fertig</translation>
    </message>
</context>
<context>
    <name>airlock::ui::MainWindow</name>
    <message>
        <source>Airlock</source>
        <translation>Airlock</translation>
    </message>
    <message>
        <source>Sandboxes</source>
        <translation>Sandboxen</translation>
    </message>
    <message>
        <source>&amp;Terminal</source>
        <translation>&amp;Terminal</translation>
    </message>
    <message>
        <source>&amp;Network</source>
        <translation>&amp;Netzwerk</translation>
    </message>
    <message>
        <source>Sna&amp;pshots</source>
        <translation>Sna&amp;pshots</translation>
    </message>
    <message>
        <source>S&amp;ecrets</source>
        <translation>&amp;Geheimnisse</translation>
    </message>
    <message>
        <source>Select a sandbox to see its console, network, snapshots and secrets.</source>
        <translation>Wählen Sie eine Sandbox, um ihre Konsole, ihr Netzwerk, ihre Snapshots und Geheimnisse zu sehen.</translation>
    </message>
    <message>
        <source>Pending requests</source>
        <translation>Wartende Anfragen</translation>
    </message>
    <message>
        <source>Pending requests (%1)</source>
        <translation>Wartende Anfragen (%1)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;New sandbox…</source>
        <translation>&amp;Neue Sandbox …</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Sandbox</source>
        <translation>&amp;Sandbox</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>Sto&amp;ppen</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Anhalten</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>&amp;Fortsetzen</translation>
    </message>
    <message>
        <source>&amp;Kill</source>
        <translation>&amp;Abbrechen</translation>
    </message>
    <message>
        <source>Re&amp;move…</source>
        <translation>&amp;Entfernen …</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>&amp;Vault</source>
        <translation>&amp;Tresor</translation>
    </message>
    <message>
        <source>&amp;Unlock…</source>
        <translation>&amp;Entsperren …</translation>
    </message>
    <message>
        <source>&amp;Lock</source>
        <translation>&amp;Sperren</translation>
    </message>
    <message>
        <source>Could not lock the vault: %1</source>
        <translation>Der Tresor konnte nicht gesperrt werden: %1</translation>
    </message>
    <message>
        <source>&amp;Create…</source>
        <translation>&amp;Anlegen …</translation>
    </message>
    <message>
        <source>Change &amp;passphrase…</source>
        <translation>&amp;Passphrase ändern …</translation>
    </message>
    <message>
        <source>&amp;Secrets…</source>
        <translation>&amp;Geheimnisse …</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Airlock</source>
        <translation>&amp;Über Airlock</translation>
    </message>
    <message>
        <source>About Airlock</source>
        <translation>Über Airlock</translation>
    </message>
    <message>
        <source>Airlock %1
AI coding agents in microVMs, with every network connection approved live and secrets lent through a host proxy.</source>
        <translation>Airlock %1
KI-Coding-Agenten in MicroVMs, jede Netzwerkverbindung live freigegeben, Geheimnisse über einen Host-Proxy verliehen.</translation>
    </message>
    <message>
        <source>Connected to airlockd</source>
        <translation>Mit airlockd verbunden</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Verbinde …</translation>
    </message>
    <message>
        <source>Starting airlockd…</source>
        <translation>Starte airlockd …</translation>
    </message>
    <message>
        <source>Not connected: %1</source>
        <translation>Nicht verbunden: %1</translation>
    </message>
    <message>
        <source>airlockd %1</source>
        <translation>airlockd %1</translation>
    </message>
    <message>
        <source>libvirt %1</source>
        <translation>libvirt %1</translation>
    </message>
    <message>
        <source>⚠ TCG emulation: no usable KVM, VMs run slowly</source>
        <translation>⚠ TCG-Emulation: kein nutzbares KVM, VMs laufen langsam</translation>
    </message>
    <message>
        <source>Sandboxes run under QEMU&apos;s TCG emulation because KVM is not usable on this host. They work, but boot and run several times slower.</source>
        <translation>Sandboxen laufen unter QEMUs TCG-Emulation, weil KVM auf diesem Rechner nicht nutzbar ist. Sie funktionieren, starten und laufen aber um ein Vielfaches langsamer.</translation>
    </message>
    <message>
        <source>KVM acceleration</source>
        <translation>KVM-Beschleunigung</translation>
    </message>
    <message>
        <source>vault unlocked</source>
        <translation>Tresor entsperrt</translation>
    </message>
    <message>
        <source>vault locked</source>
        <translation>Tresor gesperrt</translation>
    </message>
    <message>
        <source>no vault yet</source>
        <translation>noch kein Tresor</translation>
    </message>
    <message numerus="yes">
        <source>%n sandbox(es)</source>
        <translation>
            <numerusform>%n Sandbox</numerusform>
            <numerusform>%n Sandboxen</numerusform>
        </translation>
    </message>
    <message>
        <source>Alert from %1</source>
        <translation>Alarm von %1</translation>
    </message>
    <message>
        <source>This airlockd cannot manage sandboxes yet (sandbox.list is not available).
Update airlockd to create and run sandboxes.</source>
        <translation>Dieser airlockd kann noch keine Sandboxen verwalten (sandbox.list ist nicht verfügbar).
Aktualisieren Sie airlockd, um Sandboxen anzulegen und zu starten.</translation>
    </message>
    <message>
        <source>No sandboxes yet.
Create one with File → New sandbox (Ctrl+N).</source>
        <translation>Noch keine Sandboxen.
Legen Sie eine an mit Datei → Neue Sandbox (Strg+N).</translation>
    </message>
    <message>
        <source>Remove sandbox</source>
        <translation>Sandbox entfernen</translation>
    </message>
    <message>
        <source>Remove %1 with its disk and snapshots? This cannot be undone.</source>
        <translation>%1 samt Festplatte und Snapshots entfernen? Das lässt sich nicht rückgängig machen.</translation>
    </message>
    <message>
        <source>%1 failed for %2.</source>
        <translation>%1 ist für %2 fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Settin&amp;gs</source>
        <translation>E&amp;instellungen</translation>
    </message>
    <message>
        <source>Vie&amp;w</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Image %1: %2</source>
        <translation>Abbild %1: %2</translation>
    </message>
    <message>
        <source>E&amp;xport changes…</source>
        <translation>Änderungen e&amp;xportieren …</translation>
    </message>
    <message>
        <source>Bring the sandbox&apos;s new commits in /workspace back as a bundle or patches</source>
        <translation>Die neuen Commits in /workspace der Sandbox als Bundle oder Patches zurückholen</translation>
    </message>
    <message>
        <source>&amp;Hosts</source>
        <translation>&amp;Rechner</translation>
    </message>
    <message>
        <source>&amp;Build image…</source>
        <translation>Abbild &amp;bauen …</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>Dieser Computer</translation>
    </message>
    <message>
        <source>&amp;Add remote host…</source>
        <translation>Entfernten Rechner &amp;hinzufügen …</translation>
    </message>
    <message>
        <source>&amp;Remove this host</source>
        <translation>Diesen Rechner &amp;entfernen</translation>
    </message>
    <message>
        <source>%1 — Airlock</source>
        <translation>%1 — Airlock</translation>
    </message>
    <message>
        <source>Connected to airlockd on %1</source>
        <translation>Mit airlockd auf %1 verbunden</translation>
    </message>
    <message>
        <source>P&amp;orts</source>
        <translation>P&amp;orts</translation>
    </message>
    <message>
        <source>No browser could be started; open %1 yourself</source>
        <translation>Es ließ sich kein Browser starten; öffnen Sie %1 selbst</translation>
    </message>
    <message>
        <source>&amp;Import image…</source>
        <translation>Image &amp;importieren…</translation>
    </message>
    <message>
        <source>&amp;Requests</source>
        <translation>&amp;Anfragen</translation>
    </message>
    <message>
        <source>&amp;Allow the selected request</source>
        <translation>Gewählte Anfrage &amp;erlauben</translation>
    </message>
    <message>
        <source>&amp;Deny the selected request</source>
        <translation>Gewählte Anfrage &amp;verweigern</translation>
    </message>
    <message>
        <source>&amp;Next pending request</source>
        <translation>&amp;Nächste wartende Anfrage</translation>
    </message>
    <message>
        <source>&amp;Watch layout</source>
        <translation>&amp;Beobachten-Ansicht</translation>
    </message>
    <message>
        <source>The terminal and the live attempts side by side, pending requests above them</source>
        <translation>Terminal und laufende Verbindungsversuche nebeneinander, offene Anfragen darüber</translation>
    </message>
    <message>
        <source>&amp;Run agent on a folder…</source>
        <translation>Agenten auf einem &amp;Ordner ausführen …</translation>
    </message>
    <message>
        <source>The project the agent works on (a git repository)</source>
        <translation>Das Projekt, an dem der Agent arbeitet (ein Git-Repository)</translation>
    </message>
    <message>
        <source>Run an agent on %1</source>
        <translation>Einen Agenten auf %1 ausführen</translation>
    </message>
</context>
<context>
    <name>airlock::ui::NetworkView</name>
    <message>
        <source>Search host, IP, path, rule…</source>
        <translation>Host, IP, Pfad, Regel suchen …</translation>
    </message>
    <message>
        <source>Search attempts</source>
        <translation>Versuche durchsuchen</translation>
    </message>
    <message>
        <source>All attempts</source>
        <translation>Alle Versuche</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>Verweigert</translation>
    </message>
    <message>
        <source>Allowed</source>
        <translation>Erlaubt</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>Anzeigen</translation>
    </message>
    <message>
        <source>Load &amp;older</source>
        <translation>Ä&amp;ltere laden</translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s)</source>
        <translation>
            <numerusform>%n Versuch</numerusform>
            <numerusform>%n Versuche</numerusform>
        </translation>
    </message>
    <message>
        <source>This airlockd does not record egress attempts yet (egress.list is not available).
Update airlockd; attempts appear here as they happen.</source>
        <translation>Dieser airlockd zeichnet noch keine ausgehenden Verbindungen auf (egress.list ist nicht verfügbar).
Aktualisieren Sie airlockd; Versuche erscheinen hier, sobald sie geschehen.</translation>
    </message>
    <message>
        <source>Could not load attempts: %1</source>
        <translation>Versuche konnten nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>Every attempt</source>
        <translation>Jeder Versuch</translation>
    </message>
    <message>
        <source>By destination</source>
        <translation>Nach Ziel</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>Gruppierung</translation>
    </message>
    <message>
        <source>The flat list, newest first, or the attempts grouped by domain, host and port</source>
        <translation>Die flache Liste, neueste zuerst, oder die Versuche nach Domain, Host und Port gruppiert</translation>
    </message>
    <message>
        <source>Attempts by destination</source>
        <translation>Versuche nach Ziel</translation>
    </message>
</context>
<context>
    <name>airlock::ui::NewSandboxDialog</name>
    <message>
        <source>New sandbox</source>
        <translation>Neue Sandbox</translation>
    </message>
    <message>
        <source>e.g. agent-1</source>
        <translation>z. B. agent-1</translation>
    </message>
    <message>
        <source>Default image</source>
        <translation>Standardabbild</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>Secrets to lend</source>
        <translation>Zu verleihende Geheimnisse</translation>
    </message>
    <message>
        <source>&amp;Start it now</source>
        <translation>Sofort &amp;starten</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Template:</source>
        <translation>&amp;Vorlage:</translation>
    </message>
    <message>
        <source>&amp;Image:</source>
        <translation>&amp;Abbild:</translation>
    </message>
    <message>
        <source>&amp;CPUs:</source>
        <translation>&amp;CPUs:</translation>
    </message>
    <message>
        <source>&amp;Memory:</source>
        <translation>&amp;Speicher:</translation>
    </message>
    <message>
        <source>&amp;Disk:</source>
        <translation>&amp;Festplatte:</translation>
    </message>
    <message>
        <source>S&amp;ecrets:</source>
        <translation>&amp;Geheimnisse:</translation>
    </message>
    <message>
        <source>C&amp;reate</source>
        <translation>&amp;Anlegen</translation>
    </message>
    <message>
        <source>(no secrets available)</source>
        <translation>(keine Geheimnisse verfügbar)</translation>
    </message>
    <message>
        <source>Give the sandbox a name: lower-case letters, digits and &apos;-&apos;.</source>
        <translation>Geben Sie der Sandbox einen Namen: Kleinbuchstaben, Ziffern und „-“.</translation>
    </message>
    <message>
        <source>Creating…</source>
        <translation>Lege an …</translation>
    </message>
    <message>
        <source>Could not create the sandbox: %1</source>
        <translation>Die Sandbox konnte nicht angelegt werden: %1</translation>
    </message>
    <message>
        <source>none: an empty sandbox</source>
        <translation>keins: eine leere Sandbox</translation>
    </message>
    <message>
        <source>A git repository on this computer. Its commits are copied into the sandbox&apos;s /workspace as a git bundle (never shared or mounted); uncommitted changes stay here.</source>
        <translation>Ein Git-Repository auf diesem Rechner. Seine Commits werden als Git-Bundle nach /workspace in die Sandbox kopiert (nie freigegeben oder eingehängt); nicht committete Änderungen bleiben hier.</translation>
    </message>
    <message>
        <source>Workspace repository</source>
        <translation>Repository für den Arbeitsbereich</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>&amp;Durchsuchen …</translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation>Arbeits&amp;bereich:</translation>
    </message>
    <message>
        <source>Cancelling: removing the sandbox again…</source>
        <translation>Abbruch: die Sandbox wird wieder entfernt …</translation>
    </message>
    <message>
        <source>Choose a git repository</source>
        <translation>Ein Git-Repository wählen</translation>
    </message>
    <message>
        <source>Creating the sandbox and copying %1 into it…</source>
        <translation>Lege die Sandbox an und kopiere %1 hinein …</translation>
    </message>
    <message>
        <source>None (a plain sandbox)</source>
        <translation>Keine (eine einfache Sandbox)</translation>
    </message>
    <message>
        <source>None: ask for every host</source>
        <translation>Keine: für jeden Host fragen</translation>
    </message>
    <message>
        <source>Egress preset</source>
        <translation>Voreinstellung für ausgehende Verbindungen</translation>
    </message>
    <message>
        <source>E&amp;gress preset:</source>
        <translation>&amp;Voreinstellung:</translation>
    </message>
    <message>
        <source>This airlockd offers no presets: %1</source>
        <translation>Dieser airlockd bietet keine Voreinstellungen: %1</translation>
    </message>
    <message>
        <source>Allows %1</source>
        <translation>Erlaubt %1</translation>
    </message>
    <message>
        <source>E&amp;phemeral: removed, disk and all, once it stops</source>
        <translation>&amp;Flüchtig: wird samt Festplatte entfernt, sobald sie anhält</translation>
    </message>
    <message>
        <source>Nothing of it is kept after it stops, not even snapshots. Take its commits before you stop it (Sandbox &gt; Export changes…).</source>
        <translation>Nach dem Anhalten bleibt nichts von ihr, auch keine Snapshots. Übernehmen Sie ihre Commits, bevor Sie sie anhalten (Sandbox &gt; Änderungen exportieren …).</translation>
    </message>
    <message>
        <source>Preset parameters</source>
        <translation>Parameter der Voreinstellung</translation>
    </message>
    <message>
        <source>Preset &amp;values:</source>
        <translation>&amp;Werte der Voreinstellung:</translation>
    </message>
    <message>
        <source>While it runs, Airlock checkpoints it (memory and disk) this often and keeps the latest few: a timeline on the Snapshots tab to go back in, with the agent still running.</source>
        <translation>Solange sie läuft, legt Airlock so oft einen Checkpoint an (Speicher und Festplatte) und behält die neuesten: eine Zeitleiste im Reiter Snapshots, in der man zurückgehen kann, während der Agent weiterläuft.</translation>
    </message>
    <message>
        <source>Automatic c&amp;heckpoints:</source>
        <translation>Automatische C&amp;heckpoints:</translation>
    </message>
</context>
<context>
    <name>airlock::ui::PendingModel</name>
    <message numerus="yes">
        <source>deny in %n s</source>
        <translation>
            <numerusform>Verweigern in %n s</numerusform>
            <numerusform>Verweigern in %n s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 wants to reach %2 (%3) on port %4. Without an answer it is denied in %n s.</source>
        <translation>
            <numerusform>%1 möchte %2 (%3) auf Port %4 erreichen. Ohne Antwort wird das in %n s verweigert.</numerusform>
            <numerusform>%1 möchte %2 (%3) auf Port %4 erreichen. Ohne Antwort wird das in %n s verweigert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>Host:port</source>
        <translation>Host:Port</translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>Anfrage</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>Versuche</translation>
    </message>
    <message>
        <source>On timeout</source>
        <translation>Bei Zeitablauf</translation>
    </message>
    <message>
        <source>waits for you</source>
        <translation>wartet auf Sie</translation>
    </message>
    <message>
        <source>%1 wants to reach %2 (%3) on port %4. It waits until you answer.</source>
        <translation>%1 möchte %2 (%3) auf Port %4 erreichen. Die Anfrage wartet, bis Sie antworten.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::PendingPanel</name>
    <message>
        <source>No connection is waiting for a decision.</source>
        <translation>Keine Verbindung wartet auf eine Entscheidung.</translation>
    </message>
    <message>
        <source>Pending requests</source>
        <translation>Wartende Anfragen</translation>
    </message>
</context>
<context>
    <name>airlock::ui::PolicyButton</name>
    <message>
        <source>&amp;Policy</source>
        <translation>&amp;Richtlinie</translation>
    </message>
    <message>
        <source>Policy files</source>
        <translation>Richtliniendateien</translation>
    </message>
    <message>
        <source>Save this session&apos;s decisions…</source>
        <translation>Entscheidungen dieser Sitzung speichern…</translation>
    </message>
    <message>
        <source>Export this sandbox&apos;s rules…</source>
        <translation>Regeln dieser Sandbox exportieren…</translation>
    </message>
    <message>
        <source>Import a policy…</source>
        <translation>Eine Richtlinie importieren…</translation>
    </message>
    <message>
        <source>Import a policy into %1</source>
        <translation>Eine Richtlinie in %1 importieren</translation>
    </message>
    <message>
        <source>Export the rules of %1</source>
        <translation>Die Regeln von %1 exportieren</translation>
    </message>
    <message>
        <source>Save the decisions of %1</source>
        <translation>Die Entscheidungen von %1 speichern</translation>
    </message>
    <message>
        <source>No policy was saved: %1</source>
        <translation>Keine Richtlinie gespeichert: %1</translation>
    </message>
    <message numerus="yes">
        <source>Saved %n rule(s) to %1.</source>
        <translation>
            <numerusform>%n Regel in %1 gespeichert.</numerusform>
            <numerusform>%n Regeln in %1 gespeichert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Left out %1.</source>
        <translation>Ausgelassen: %1.</translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation>Nichts wurde geändert: %1</translation>
    </message>
    <message>
        <source>Export the global rules…</source>
        <translation>Globale Regeln exportieren …</translation>
    </message>
    <message>
        <source>Import a policy into the global rules…</source>
        <translation>Richtlinie in die globalen Regeln importieren …</translation>
    </message>
    <message>
        <source>Export the global rules</source>
        <translation>Globale Regeln exportieren</translation>
    </message>
    <message>
        <source>Import a policy into the global rules</source>
        <translation>Richtlinie in die globalen Regeln importieren</translation>
    </message>
</context>
<context>
    <name>airlock::ui::PolicyImportDialog</name>
    <message>
        <source>Import a policy into %1</source>
        <translation>Eine Richtlinie in %1 importieren</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>Änderungen</translation>
    </message>
    <message>
        <source>Reading the file…</source>
        <translation>Datei wird gelesen…</translation>
    </message>
    <message>
        <source>Applying…</source>
        <translation>Wird angewendet…</translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation>Nichts wurde geändert: %1</translation>
    </message>
    <message>
        <source>Applied: %1 added, %2 removed.</source>
        <translation>Angewendet: %1 hinzugefügt, %2 entfernt.</translation>
    </message>
    <message>
        <source>  (rule %1)</source>
        <translation>  (Regel %1)</translation>
    </message>
    <message>
        <source>says the opposite of the file</source>
        <translation>sagt das Gegenteil der Datei</translation>
    </message>
    <message>
        <source>already there</source>
        <translation>schon vorhanden</translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) say the opposite of the file (!): tick Replace to make the file&apos;s rules the only lasting ones, or remove those rules first.</source>
        <translation>
            <numerusform>%n Regel sagt das Gegenteil der Datei (!): Kreuzen Sie Ersetzen an, damit die Regeln der Datei die einzigen dauerhaften sind, oder entfernen Sie diese Regel zuerst.</numerusform>
            <numerusform>%n Regeln sagen das Gegenteil der Datei (!): Kreuzen Sie Ersetzen an, damit die Regeln der Datei die einzigen dauerhaften sind, oder entfernen Sie diese Regeln zuerst.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 to add, %2 to remove, %3 already there.</source>
        <translation>%1 hinzuzufügen, %2 zu entfernen, %3 schon vorhanden.</translation>
    </message>
    <message>
        <source>the global rules</source>
        <translation>die globalen Regeln</translation>
    </message>
    <message>
        <source>sandbox %1</source>
        <translation>Sandbox %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; into &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;Read every change before you apply it: a policy file in a project is something the agent could have edited.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; in &lt;b&gt;%2&lt;/b&gt;&lt;br&gt;Lesen Sie jede Änderung, bevor Sie sie anwenden: Eine Richtliniendatei in einem Projekt kann der Agent bearbeitet haben.</translation>
    </message>
    <message>
        <source>&amp;Replace: remove the lasting global rules that the file does not have</source>
        <translation>&amp;Ersetzen: dauerhafte globale Regeln entfernen, die nicht in der Datei stehen</translation>
    </message>
    <message>
        <source>&amp;Replace: remove the lasting rules of %1 that the file does not have</source>
        <translation>&amp;Ersetzen: dauerhafte Regeln von %1 entfernen, die nicht in der Datei stehen</translation>
    </message>
    <message>
        <source>Nothing to change: every rule of the file is already in %1.</source>
        <translation>Nichts zu ändern: Jede Regel der Datei ist schon in %1.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::PortsModel</name>
    <message>
        <source>Listening</source>
        <translation>Lauscht</translation>
    </message>
    <message>
        <source>Sandbox stopped</source>
        <translation>Sandbox gestoppt</translation>
    </message>
    <message>
        <source>Not listening: %1</source>
        <translation>Lauscht nicht: %1</translation>
    </message>
    <message>
        <source>%1 to the guest, %2 back</source>
        <translation>%1 zum Gast, %2 zurück</translation>
    </message>
    <message>
        <source>Only this machine reaches it; the guest gets no way out through it</source>
        <translation>Nur dieser Rechner erreicht ihn; der Gast bekommt dadurch keinen Weg nach draußen</translation>
    </message>
    <message>
        <source>Guest port</source>
        <translation>Gast-Port</translation>
    </message>
    <message>
        <source>Reached at</source>
        <translation>Erreichbar unter</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>Verbindungen</translation>
    </message>
    <message>
        <source>Traffic</source>
        <translation>Datenverkehr</translation>
    </message>
</context>
<context>
    <name>airlock::ui::PortsView</name>
    <message>
        <source>A port the agent serves in the guest (a dev server, say), reached from this machine only. The guest gets no way out through it.</source>
        <translation>Ein Port, den der Agent im Gast anbietet (etwa ein Entwicklungsserver), nur von diesem Rechner aus erreichbar. Der Gast bekommt dadurch keinen Weg nach draußen.</translation>
    </message>
    <message>
        <source>Guest port</source>
        <translation>Gast-Port</translation>
    </message>
    <message>
        <source>same, or any free</source>
        <translation>gleicher oder ein freier</translation>
    </message>
    <message>
        <source>Host port</source>
        <translation>Host-Port</translation>
    </message>
    <message>
        <source>E&amp;xpose</source>
        <translation>&amp;Freigeben</translation>
    </message>
    <message>
        <source>&amp;Guest port:</source>
        <translation>&amp;Gast-Port:</translation>
    </message>
    <message>
        <source>on &amp;host port:</source>
        <translation>auf &amp;Host-Port:</translation>
    </message>
    <message>
        <source>Exposed ports</source>
        <translation>Freigegebene Ports</translation>
    </message>
    <message>
        <source>&amp;Open in browser</source>
        <translation>Im Browser ö&amp;ffnen</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>This airlockd does not expose ports; update it to use this tab.</source>
        <translation>Dieser airlockd gibt keine Ports frei; aktualisieren Sie ihn, um diesen Reiter zu nutzen.</translation>
    </message>
    <message>
        <source>Could not list the ports: %1</source>
        <translation>Die Ports konnten nicht aufgelistet werden: %1</translation>
    </message>
    <message>
        <source>Could not expose the port: %1</source>
        <translation>Der Port konnte nicht freigegeben werden: %1</translation>
    </message>
    <message>
        <source>Port %1 of %2 is reached at %3</source>
        <translation>Port %1 von %2 ist unter %3 erreichbar</translation>
    </message>
    <message>
        <source>Port %1 of %2 will be reached at %3 once it runs</source>
        <translation>Port %1 von %2 ist unter %3 erreichbar, sobald sie läuft</translation>
    </message>
    <message>
        <source>Could not remove the port: %1</source>
        <translation>Der Port konnte nicht entfernt werden: %1</translation>
    </message>
    <message>
        <source>Port %1 of %2 is no longer reached</source>
        <translation>Port %1 von %2 ist nicht mehr erreichbar</translation>
    </message>
</context>
<context>
    <name>airlock::ui::RemoteHostDialog</name>
    <message>
        <source>Add remote host</source>
        <translation>Entfernten Rechner hinzufügen</translation>
    </message>
    <message>
        <source>Airlock talks to the airlockd of another machine over ssh. That machine needs airlockd running and airlockctl installed; your ssh user must be allowed to use it.</source>
        <translation>Airlock spricht über ssh mit dem airlockd eines anderen Rechners. Dort muss airlockd laufen und airlockctl installiert sein; Ihr ssh-Benutzer muss ihn verwenden dürfen.</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished">&amp;Name:</translation>
    </message>
    <message>
        <source>user@devbox</source>
        <translation>benutzer@devbox</translation>
    </message>
    <message>
        <source>&amp;SSH destination:</source>
        <translation>&amp;SSH-Ziel:</translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation>&amp;Befehl:</translation>
    </message>
    <message>
        <source>&amp;Add host</source>
        <translation>Rechner &amp;hinzufügen</translation>
    </message>
</context>
<context>
    <name>airlock::ui::RequestNotices</name>
    <message>
        <source>%1 wants to connect</source>
        <translation>%1 möchte eine Verbindung aufbauen</translation>
    </message>
    <message>
        <source>%1 on %2 port %3.</source>
        <translation>%1 auf %2, Port %3.</translation>
    </message>
    <message>
        <source>%1 port %2 (%3).</source>
        <translation>%1, Port %2 (%3).</translation>
    </message>
    <message>
        <source>The guest says: %1.</source>
        <translation>Laut Gast: %1.</translation>
    </message>
    <message>
        <source>It waits until you answer.</source>
        <translation>Sie wartet, bis Sie antworten.</translation>
    </message>
    <message>
        <source>Denied in %1 s unless you allow it.</source>
        <translation>Wird in %1 s verweigert, wenn Sie sie nicht erlauben.</translation>
    </message>
    <message>
        <source>Could not decide: %1</source>
        <translation>Entscheidung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Allowed %1 once, from the notification.</source>
        <translation>%1 einmal erlaubt (aus der Benachrichtigung).</translation>
    </message>
    <message>
        <source>Denied %1 once, from the notification.</source>
        <translation>%1 einmal verweigert (aus der Benachrichtigung).</translation>
    </message>
</context>
<context>
    <name>airlock::ui::RequestNotifications</name>
    <message>
        <source>Show</source>
        <translation>Anzeigen</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>Einmal erlauben</translation>
    </message>
    <message>
        <source>Deny once</source>
        <translation>Einmal verweigern</translation>
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
        <translation>%1 MiB</translation>
    </message>
    <message numerus="yes">
        <source>%n connection request(s) wait for your decision</source>
        <translation>
            <numerusform>%n Verbindungsanfrage wartet auf Ihre Entscheidung</numerusform>
            <numerusform>%n Verbindungsanfragen warten auf Ihre Entscheidung</numerusform>
        </translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>Abbild</translation>
    </message>
    <message>
        <source>IP</source>
        <translation>IP</translation>
    </message>
    <message>
        <source>Uptime</source>
        <translation>Laufzeit</translation>
    </message>
    <message>
        <source>CPU / Memory</source>
        <translation>CPU / Speicher</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>paused (host disk full)</source>
        <translation>angehalten (Platte des Rechners voll)</translation>
    </message>
    <message>
        <source>paused (host disk error)</source>
        <translation>angehalten (Plattenfehler des Rechners)</translation>
    </message>
</context>
<context>
    <name>airlock::ui::SecretsDialog</name>
    <message>
        <source>Secrets</source>
        <translation>Geheimnisse</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Hosts</source>
        <translation>Hosts</translation>
    </message>
    <message>
        <source>Header</source>
        <translation>Header</translation>
    </message>
    <message>
        <source>Used by</source>
        <translation>Verwendet von</translation>
    </message>
    <message>
        <source>&amp;Remove selected</source>
        <translation>Auswahl &amp;entfernen</translation>
    </message>
    <message>
        <source>Set a secret (the value can never be read back)</source>
        <translation>Geheimnis setzen (der Wert kann nie wieder ausgelesen werden)</translation>
    </message>
    <message>
        <source>api.example.com, *.example.org</source>
        <translation>api.example.com, *.example.org</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Hosts:</source>
        <translation>&amp;Hosts:</translation>
    </message>
    <message>
        <source>Hea&amp;der:</source>
        <translation>Hea&amp;der:</translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation>&amp;Wert:</translation>
    </message>
    <message>
        <source>&amp;Save secret</source>
        <translation>Geheimnis &amp;speichern</translation>
    </message>
    <message>
        <source>This airlockd has no vault yet.</source>
        <translation>Dieser airlockd hat noch keinen Tresor.</translation>
    </message>
    <message>
        <source>A secret needs a name, at least one host and a value.</source>
        <translation>Ein Geheimnis braucht einen Namen, mindestens einen Host und einen Wert.</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Gespeichert.</translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation>Speichern fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Could not remove: %1</source>
        <translation>Entfernen fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Sign-in</source>
        <translation>Anmeldung</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>Läuft ab</translation>
    </message>
    <message>
        <source>Sign an agent in (its tokens stay in the vault; the guest gets placeholders)</source>
        <translation>Einen Agenten anmelden (seine Tokens bleiben im Tresor; der Gast erhält Platzhalter)</translation>
    </message>
    <message>
        <source>Sign &amp;in…</source>
        <translation>&amp;Anmelden …</translation>
    </message>
    <message>
        <source>Starting the sign-in sandbox %1…</source>
        <translation>Die Anmelde-Sandbox %1 startet …</translation>
    </message>
    <message>
        <source>Could not start the sign-in: %1</source>
        <translation>Die Anmeldung konnte nicht gestartet werden: %1</translation>
    </message>
    <message>
        <source>Runs the agent&apos;s sign-in in a throw-away sandbox whose terminal opens in the main window. Open the address it shows in your browser and do what it asks (paste the code the page gives back, or enter the code it shows); stop the sandbox when it is done. Every later sandbox of the template starts signed in.</source>
        <translation>Führt die Anmeldung des Agenten in einer Wegwerf-Sandbox aus, deren Terminal sich im Hauptfenster öffnet. Öffnen Sie die angezeigte Adresse in Ihrem Browser und tun Sie, was sie verlangt (den Code einfügen, den die Seite zurückgibt, oder den angezeigten Code dort eingeben); halten Sie die Sandbox danach an. Jede spätere Sandbox der Vorlage startet angemeldet.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::SecretsView</name>
    <message>
        <source>Secrets lent to this sandbox. The guest only sees a placeholder; the broker puts the real value into requests to the listed hosts.</source>
        <translation>Geheimnisse, die dieser Sandbox geliehen sind. Der Gast sieht nur einen Platzhalter; der Broker setzt den echten Wert in Anfragen an die genannten Hosts ein.</translation>
    </message>
    <message>
        <source>Secret</source>
        <translation>Geheimnis</translation>
    </message>
    <message>
        <source>Hosts</source>
        <translation>Hosts</translation>
    </message>
    <message>
        <source>Bound secrets</source>
        <translation>Gebundene Geheimnisse</translation>
    </message>
    <message>
        <source>&amp;Manage secrets…</source>
        <translation>Geheimnisse &amp;verwalten …</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>Warnungen</translation>
    </message>
    <message>
        <source>This airlockd has no vault yet (secret.list is not available).</source>
        <translation>Dieser airlockd hat noch keinen Tresor (secret.list ist nicht verfügbar).</translation>
    </message>
    <message>
        <source>Sent as</source>
        <translation>Gesendet als</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>Läuft ab</translation>
    </message>
    <message>
        <source>in the %1 sign-in&apos;s token requests</source>
        <translation>in den Token-Anfragen der Anmeldung %1</translation>
    </message>
</context>
<context>
    <name>airlock::ui::SettingsView</name>
    <message>
        <source>Resources</source>
        <translation>Ressourcen</translation>
    </message>
    <message>
        <source>Egress rules of this sandbox</source>
        <translation>Regeln für ausgehende Verbindungen dieser Sandbox</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation>Muster</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>Geltungsbereich</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>Läuft ab</translation>
    </message>
    <message>
        <source>Egress rules</source>
        <translation>Regeln für ausgehende Verbindungen</translation>
    </message>
    <message>
        <source>&amp;Add rule…</source>
        <translation>Regel &amp;hinzufügen …</translation>
    </message>
    <message>
        <source>&amp;Remove rule</source>
        <translation>Regel &amp;entfernen</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>E&amp;xportieren …</translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation>&amp;Importieren …</translation>
    </message>
    <message>
        <source>Image: %1
CPUs: %2
Memory: %3 MiB
Address: %4</source>
        <translation>Abbild: %1
CPUs: %2
Speicher: %3 MiB
Adresse: %4</translation>
    </message>
    <message>
        <source>This airlockd has no egress rules yet (rule.list is not available).</source>
        <translation>Dieser airlockd hat noch keine Regeln (rule.list ist nicht verfügbar).</translation>
    </message>
    <message>
        <source>Could not list rules: %1</source>
        <translation>Regeln konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Add egress rule</source>
        <translation>Regel hinzufügen</translation>
    </message>
    <message>
        <source>Allow</source>
        <translation>Erlauben</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>Verweigern</translation>
    </message>
    <message>
        <source>api.example.com, *.example.com or 203.0.113.0/24</source>
        <translation>api.example.com, *.example.com oder 203.0.113.0/24</translation>
    </message>
    <message>
        <source>any</source>
        <translation>beliebig</translation>
    </message>
    <message>
        <source>&amp;Action:</source>
        <translation>&amp;Aktion:</translation>
    </message>
    <message>
        <source>&amp;Host:</source>
        <translation>&amp;Host:</translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation>&amp;Port:</translation>
    </message>
    <message>
        <source>Could not add the rule: %1</source>
        <translation>Die Regel konnte nicht hinzugefügt werden: %1</translation>
    </message>
    <message>
        <source>Could not remove the rule: %1</source>
        <translation>Die Regel konnte nicht entfernt werden: %1</translation>
    </message>
    <message>
        <source>Export rules</source>
        <translation>Regeln exportieren</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON-Dateien (*.json)</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n rule(s) to %1.</source>
        <translation>
            <numerusform>%n Regel nach %1 exportiert.</numerusform>
            <numerusform>%n Regeln nach %1 exportiert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Import rules</source>
        <translation>Regeln importieren</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>%1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 is not a JSON array of rules (%2). Export rules first to see the format.</source>
        <translation>%1 ist kein JSON-Array von Regeln (%2). Exportieren Sie zuerst Regeln, um das Format zu sehen.</translation>
    </message>
    <message>
        <source>not an array</source>
        <translation>kein Array</translation>
    </message>
    <message>
        <source>A rule was refused: %1</source>
        <translation>Eine Regel wurde abgelehnt: %1</translation>
    </message>
    <message>
        <source>Raw TCP</source>
        <translation>Rohes TCP</translation>
    </message>
    <message>
        <source>raw TCP</source>
        <translation>rohes TCP</translation>
    </message>
    <message>
        <source>&amp;Raw TCP: this host and port may carry bytes that are neither TLS nor HTTP for it</source>
        <translation>&amp;Rohes TCP: Dieser Host und Port darf Bytes tragen, die für ihn weder TLS noch HTTP sind</translation>
    </message>
    <message>
        <source>The broker cannot check what such bytes say; only one host or IP and one port may be opened so</source>
        <translation>Der Broker kann nicht prüfen, was solche Bytes sagen; nur ein Host oder eine IP und ein Port dürfen so geöffnet werden</translation>
    </message>
</context>
<context>
    <name>airlock::ui::SnapshotsView</name>
    <message>
        <source>&amp;Take snapshot…</source>
        <translation>Snapshot &amp;aufnehmen …</translation>
    </message>
    <message>
        <source>&amp;Restore</source>
        <translation>&amp;Wiederherstellen</translation>
    </message>
    <message>
        <source>&amp;Fork…</source>
        <translation>&amp;Abzweigen …</translation>
    </message>
    <message>
        <source>De&amp;lete</source>
        <translation>&amp;Löschen</translation>
    </message>
    <message>
        <source>Snapshot</source>
        <translation>Snapshot</translation>
    </message>
    <message>
        <source>Taken</source>
        <translation>Aufgenommen</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Snapshot tree</source>
        <translation>Snapshot-Baum</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <source>This airlockd has no snapshots yet (snapshot.list is not available).</source>
        <translation>Dieser airlockd kann noch keine Snapshots (snapshot.list ist nicht verfügbar).</translation>
    </message>
    <message>
        <source>Could not list snapshots</source>
        <translation>Snapshots konnten nicht gelesen werden</translation>
    </message>
    <message>
        <source>(no label)</source>
        <translation>(ohne Bezeichnung)</translation>
    </message>
    <message>
        <source>← current</source>
        <translation>← aktuell</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Take snapshot</source>
        <translation>Snapshot aufnehmen</translation>
    </message>
    <message>
        <source>Label (optional):</source>
        <translation>Bezeichnung (optional):</translation>
    </message>
    <message>
        <source>Snapshot taken.</source>
        <translation>Snapshot aufgenommen.</translation>
    </message>
    <message>
        <source>Could not take the snapshot</source>
        <translation>Der Snapshot konnte nicht aufgenommen werden</translation>
    </message>
    <message>
        <source>Restore snapshot</source>
        <translation>Snapshot wiederherstellen</translation>
    </message>
    <message>
        <source>%1 is running. Restoring stops it and discards every change since this snapshot. Restore?</source>
        <translation>%1 läuft. Das Wiederherstellen hält sie an und verwirft alle Änderungen seit diesem Snapshot. Wiederherstellen?</translation>
    </message>
    <message>
        <source>Restored.</source>
        <translation>Wiederhergestellt.</translation>
    </message>
    <message>
        <source>Could not restore</source>
        <translation>Wiederherstellen fehlgeschlagen</translation>
    </message>
    <message>
        <source>Fork snapshot</source>
        <translation>Snapshot abzweigen</translation>
    </message>
    <message>
        <source>Name of the new sandbox:</source>
        <translation>Name der neuen Sandbox:</translation>
    </message>
    <message>
        <source>Forked into %1.</source>
        <translation>Nach %1 abgezweigt.</translation>
    </message>
    <message>
        <source>Could not fork</source>
        <translation>Abzweigen fehlgeschlagen</translation>
    </message>
    <message>
        <source>Snapshot %1 deleted.</source>
        <translation>Snapshot %1 gelöscht.</translation>
    </message>
    <message>
        <source>Could not delete the snapshot</source>
        <translation>Der Snapshot konnte nicht gelöscht werden</translation>
    </message>
    <message>
        <source>Automatic &amp;checkpoints:</source>
        <translation>Automatische &amp;Checkpoints:</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Could not change the automatic checkpoints</source>
        <translation>Die automatischen Checkpoints konnten nicht geändert werden</translation>
    </message>
    <message>
        <source>Could not read the automatic checkpoints</source>
        <translation>Die automatischen Checkpoints konnten nicht gelesen werden</translation>
    </message>
    <message>
        <source>(automatic)</source>
        <translation>(automatisch)</translation>
    </message>
    <message>
        <source>checkpoint, %1</source>
        <translation>Checkpoint, %1</translation>
    </message>
    <message>
        <source>disk only</source>
        <translation>nur Festplatte</translation>
    </message>
    <message>
        <source>Disk, memory and devices: a restore resumes its processes where they were</source>
        <translation>Festplatte, Speicher und Geräte: Das Wiederherstellen setzt die Prozesse dort fort, wo sie waren</translation>
    </message>
    <message>
        <source>Disk only: a restore boots from these files</source>
        <translation>Nur Festplatte: Das Wiederherstellen bootet von diesen Dateien</translation>
    </message>
    <message>
        <source>Label (optional). Its running processes are saved too: a restore resumes them.</source>
        <translation>Bezeichnung (optional). Die laufenden Prozesse werden mitgesichert: Das Wiederherstellen setzt sie fort.</translation>
    </message>
    <message>
        <source>%1 is running. Restoring resumes it as it was at this checkpoint, its processes included, and discards every change since. Restore?</source>
        <translation>%1 läuft. Das Wiederherstellen setzt sie so fort, wie sie bei diesem Checkpoint war, samt ihrer Prozesse, und verwirft alle Änderungen seitdem. Wiederherstellen?</translation>
    </message>
    <message>
        <source>Forking into %1: it resumes from the checkpoint…</source>
        <translation>Abzweigen nach %1: sie setzt beim Checkpoint fort…</translation>
    </message>
    <message>
        <source>Forked into %1: it runs on from the checkpoint at its own address.</source>
        <translation>Nach %1 abgezweigt: sie läuft ab dem Checkpoint unter eigener Adresse weiter.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::TerminalView</name>
    <message>
        <source>Console of %1</source>
        <translation>Konsole von %1</translation>
    </message>
    <message>
        <source>Typing did not reach the console: %1</source>
        <translation>Die Eingabe hat die Konsole nicht erreicht: %1</translation>
    </message>
    <message>
        <source>This airlockd has no consoles yet (console.attach is not available).</source>
        <translation>Dieser airlockd hat noch keine Konsolen (console.attach ist nicht verfügbar).</translation>
    </message>
    <message>
        <source>No console: %1</source>
        <translation>Keine Konsole: %1</translation>
    </message>
</context>
<context>
    <name>airlock::ui::VaultDialog</name>
    <message>
        <source>&amp;Current passphrase:</source>
        <translation>&amp;Aktuelle Passphrase:</translation>
    </message>
    <message>
        <source>&amp;Passphrase:</source>
        <translation>&amp;Passphrase:</translation>
    </message>
    <message>
        <source>&amp;New passphrase:</source>
        <translation>&amp;Neue Passphrase:</translation>
    </message>
    <message>
        <source>&amp;Repeat it:</source>
        <translation>&amp;Wiederholen:</translation>
    </message>
    <message>
        <source>Create the vault</source>
        <translation>Tresor anlegen</translation>
    </message>
    <message>
        <source>The vault keeps your secrets encrypted on this machine. Choose a passphrase; without it the secrets cannot be recovered.</source>
        <translation>Der Tresor bewahrt Ihre Geheimnisse verschlüsselt auf diesem Rechner auf. Wählen Sie eine Passphrase; ohne sie lassen sich die Geheimnisse nicht wiederherstellen.</translation>
    </message>
    <message>
        <source>C&amp;reate vault</source>
        <translation>Tresor &amp;anlegen</translation>
    </message>
    <message>
        <source>Unlock the vault</source>
        <translation>Tresor entsperren</translation>
    </message>
    <message>
        <source>Sandboxes can use their secrets only while the vault is unlocked.</source>
        <translation>Sandboxen können ihre Geheimnisse nur nutzen, solange der Tresor entsperrt ist.</translation>
    </message>
    <message>
        <source>&amp;Unlock</source>
        <translation>&amp;Entsperren</translation>
    </message>
    <message>
        <source>Change the vault passphrase</source>
        <translation>Passphrase des Tresors ändern</translation>
    </message>
    <message>
        <source>The secrets stay as they are; only the passphrase that unlocks them changes.</source>
        <translation>Die Geheimnisse bleiben, wie sie sind; nur die Passphrase zum Entsperren ändert sich.</translation>
    </message>
    <message>
        <source>Use at least %1 characters.</source>
        <translation>Verwenden Sie mindestens %1 Zeichen.</translation>
    </message>
    <message>
        <source>The two passphrases differ; type them again.</source>
        <translation>Die beiden Passphrasen unterscheiden sich; geben Sie sie erneut ein.</translation>
    </message>
    <message>
        <source>Working…</source>
        <translation>Arbeite …</translation>
    </message>
    <message>
        <source>This airlockd has no vault yet.</source>
        <translation>Dieser airlockd hat noch keinen Tresor.</translation>
    </message>
</context>
<context>
    <name>airlock::ui::WatchLayout</name>
    <message>
        <source>&amp;Watch</source>
        <translation>&amp;Beobachten</translation>
    </message>
    <message>
        <source>The terminal and the live attempts of this sandbox side by side (View &gt; Watch layout)</source>
        <translation>Terminal und laufende Verbindungsversuche dieser Sandbox nebeneinander (Ansicht &gt; Beobachten-Ansicht)</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Airlock: AI coding agents in microVMs, every connection approved by you.</source>
        <translation>Airlock: KI-Coding-Agenten in MicroVMs, jede Verbindung von Ihnen freigegeben.</translation>
    </message>
    <message>
        <source>airlockd&apos;s socket (default: $AIRLOCK_SOCKET, else %1).</source>
        <translation>Socket von airlockd (Standard: $AIRLOCK_SOCKET, sonst %1).</translation>
    </message>
    <message>
        <source>Do not start airlockd when none is running.</source>
        <translation>airlockd nicht starten, wenn keiner läuft.</translation>
    </message>
    <message>
        <source>Select this sandbox once connected.</source>
        <translation>Diese Sandbox nach dem Verbinden auswählen.</translation>
    </message>
    <message>
        <source>Open this tab: terminal, network, snapshots, ports, secrets or settings.</source>
        <translation>Diesen Reiter öffnen: terminal, network, snapshots, ports, secrets oder settings.</translation>
    </message>
    <message>
        <source>Connect to this remote host (default: $AIRLOCK_REMOTE, else the one `airlockctl remote use` chose; local: this computer).</source>
        <translation>Mit diesem entfernten Rechner verbinden (Vorgabe: $AIRLOCK_REMOTE, sonst der mit `airlockctl remote use` gewählte; local: dieser Computer).</translation>
    </message>
</context>
</TS>
