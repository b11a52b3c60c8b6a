// What a live fork does to a checkpoint's memory file before libvirt restores it: a copy
// with the fork's definition in libvirt's header and QEMU's stream byte for byte, and the
// definition edits themselves (the fork's name, UUID, disk, network and command line; the
// origin's devices and MAC; the link down until the guest has moved).
#include "saveddefinition.h"
#include "saveimage.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace airlock;

namespace {

// A save image as libvirt writes it: header, XML, NUL, cookie, NUL, zeros, stream.
QByteArray image(const QByteArray &xml, const QByteArray &cookie, quint32 dataLength, const QByteArray &stream,
                 const char *magic = "LibvirtQemudSave", quint32 version = 2)
{
    QByteArray block = xml + '\0';
    const quint32 cookieOffset = cookie.isEmpty() ? 0 : quint32(block.size());
    if (!cookie.isEmpty())
        block += cookie + '\0';
    block.append(QByteArray(qsizetype(dataLength) - block.size(), '\0'));
    QByteArray header(magic, 16);
    for (const quint32 v : {version, dataLength, quint32(1), quint32(0), cookieOffset})
        header.append(reinterpret_cast<const char *>(&v), 4);
    header.append(QByteArray(14 * 4, '\0'));
    return header + block + stream;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

const QString kSaved = QStringLiteral(R"(<domain type='qemu'>
  <name>airlock-t-origin</name>
  <uuid>11111111-1111-1111-1111-111111111111</uuid>
  <memory unit='KiB'>262144</memory>
  <os>
    <type arch='x86_64' machine='pc-q35-7.2'>hvm</type>
    <cmdline>console=ttyS0 airlock.ip=10.213.0.2/30 airlock.gw=10.213.0.1 airlock.hostname=origin</cmdline>
  </os>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' discard='unmap'/>
      <source file='/pool/origin-top.qcow2'/>
      <target dev='vda' bus='virtio'/>
      <address type='pci' domain='0x0000' bus='0x03' slot='0x00' function='0x0'/>
    </disk>
    <interface type='network'>
      <mac address='52:54:00:aa:aa:aa'/>
      <source network='airlock-t-origin' portid='abc' bridge='alb0'/>
      <target dev='vnet7'/>
      <model type='virtio'/>
      <address type='pci' domain='0x0000' bus='0x01' slot='0x00' function='0x0'/>
    </interface>
  </devices>
</domain>
)");

const QString kForkDefinition = QStringLiteral(R"(<domain type='qemu'>
  <name>airlock-t-fork</name>
  <uuid>22222222-2222-2222-2222-222222222222</uuid>
  <os>
    <type arch='x86_64' machine='pc-q35-7.2'>hvm</type>
    <cmdline>console=ttyS0 airlock.ip=10.213.0.6/30 airlock.gw=10.213.0.5 airlock.hostname=fork</cmdline>
  </os>
  <devices>
    <disk type='file' device='disk'>
      <source file='/pool/fork-top.qcow2'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='network'>
      <mac address='52:54:00:bb:bb:bb'/>
      <source network='airlock-t-fork'/>
      <model type='virtio'/>
    </interface>
  </devices>
</domain>
)");

} // namespace

class TestSaveImage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aCopyCarriesTheNewXmlAndTheSameStream()
    {
        QTemporaryDir dir;
        const QByteArray stream = QByteArray("QEVM") + QByteArray(300000, 'x') + "end";
        const QString from = dir.filePath(QStringLiteral("ckpt.mem")), to = dir.filePath(QStringLiteral("fork.resume"));
        QVERIFY(writeFile(from, image("<domain>old</domain>", "<qemu-cookie/>", 70000, stream)));
        const Result<SaveImageHeader> old = saveimage::read(from);
        QVERIFY2(old, old ? "" : qPrintable(old.error().message()));
        QCOMPARE(old->xml, QByteArray("<domain>old</domain>"));
        QCOMPARE(old->cookie, QByteArray("<qemu-cookie/>"));

        const QByteArray longer = "<domain>" + QByteArray(5000, 'n') + "</domain>";
        const Status copied = saveimage::copyWithXml(from, to, longer);
        QVERIFY2(copied, copied ? "" : qPrintable(copied.error().message()));
        const Result<SaveImageHeader> fresh = saveimage::read(to);
        QVERIFY(fresh);
        QCOMPARE(fresh->xml, longer);
        QCOMPARE(fresh->cookie, old->cookie);
        QCOMPARE(fresh->dataLength, old->dataLength);
        QFile f(to);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray all = f.readAll();
        QCOMPARE(all.mid(saveimage::kHeaderBytes + 70000), stream); // where QEMU reads it, unchanged
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(to).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u); // the guest's memory: its owner's only
    }

    void anXmlThatDoesNotFitLeavesNothing()
    {
        QTemporaryDir dir;
        const QString from = dir.filePath(QStringLiteral("ckpt.mem")), to = dir.filePath(QStringLiteral("fork.resume"));
        QVERIFY(writeFile(from, image("<domain/>", {}, 100, "stream")));
        const Status s = saveimage::copyWithXml(from, to, QByteArray(200, 'x'));
        QVERIFY(!s);
        QVERIFY2(s.error().message().contains(QLatin1String("does not fit")), qPrintable(s.error().message()));
        QVERIFY(!QFile::exists(to));
    }

    void damagedHeadersAreRefusedSayingWhy_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("says");
        QTest::newRow("unfinished save") << image("<domain/>", {}, 100, "s", "LibvirtQemudPart") << QStringLiteral("incomplete");
        QTest::newRow("not libvirt's") << image("<domain/>", {}, 100, "s", "SomethingElse!!!") << QStringLiteral("not a checkpoint");
        QTest::newRow("newer version") << image("<domain/>", {}, 100, "s", "LibvirtQemudSave", 3) << QStringLiteral("version 3");
        QTest::newRow("block too large") << image("<domain/>", {}, 100, "s").replace(20, 4, QByteArray("\xff\xff\xff\x7f", 4))
                                         << QStringLiteral("damaged");
        QTest::newRow("cut short") << image("<domain/>", {}, 100, "s").left(120) << QStringLiteral("cut short");
        QTest::newRow("shorter than a header") << QByteArray("LibvirtQemudSave") << QStringLiteral("shorter than its header");
    }

    void damagedHeadersAreRefusedSayingWhy()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString from = dir.filePath(QStringLiteral("ckpt.mem"));
        QVERIFY(writeFile(from, bytes));
        const Result<SaveImageHeader> r = saveimage::read(from);
        QVERIFY(!r);
        QVERIFY2(r.error().message().contains(says), qPrintable(r.error().message()));
        QVERIFY(!saveimage::copyWithXml(from, dir.filePath(QStringLiteral("x")), "<domain/>"));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x"))));
    }

    void theForkTakesItsOwnNamesAndKeepsTheOriginsDevices()
    {
        const Result<QString> def = liveForkDefinition(kSaved, kForkDefinition);
        QVERIFY2(def, def ? "" : qPrintable(def.error().message()));
        const QString &x = def.value();
        QVERIFY(x.contains(QLatin1String("<name>airlock-t-fork</name>")) && !x.contains(QLatin1String("airlock-t-origin")));
        QVERIFY(x.contains(QLatin1String("<uuid>22222222-2222-2222-2222-222222222222</uuid>")));
        QVERIFY(x.contains(QLatin1String("airlock.ip=10.213.0.6/30")) && !x.contains(QLatin1String("10.213.0.2")));
        QVERIFY(x.contains(QLatin1String("<source file='/pool/fork-top.qcow2'/>")));
        QVERIFY(x.contains(QLatin1String("<source network='airlock-t-fork'/>")));
        QVERIFY(!x.contains(QLatin1String("vnet7"))); // the origin's tap is the origin's
        QVERIFY(x.contains(QLatin1String("<mac address='52:54:00:aa:aa:aa'/>"))); // in QEMU's device state anyway
        QVERIFY(x.contains(QLatin1String("<link state='down'/></interface>")));
        QVERIFY(x.contains(QLatin1String("bus='0x01' slot='0x00'")) && x.contains(QLatin1String("machine='pc-q35-7.2'")));

        const Result<QString> up = interfaceWithLinkUp(x);
        QVERIFY(up);
        QVERIFY(up->startsWith(QLatin1String("<interface")) && up->contains(QLatin1String("<link state='up'/>")));
        QVERIFY(!up->contains(QLatin1String("state='down'")));
    }

    void theGuestsNewNetworkIsTheForksOwn()
    {
        const Result<GuestNetwork> n = guestNetworkOf(kForkDefinition);
        QVERIFY2(n, n ? "" : qPrintable(n.error().message()));
        QCOMPARE(n->mac, QStringLiteral("52:54:00:bb:bb:bb"));
        QCOMPARE(n->address, QStringLiteral("10.213.0.6/30"));
        QCOMPARE(n->gateway, QStringLiteral("10.213.0.5"));
        QCOMPARE(n->hostname, QStringLiteral("fork"));
        QString odd = kForkDefinition;
        odd.replace(QLatin1String("airlock.hostname=fork"), QLatin1String("airlock.hostname=$(reboot)"));
        QVERIFY(!guestNetworkOf(odd)); // values go to the guest's shell as arguments, and are checked first
    }

    void aDefinitionAirlockDidNotWriteIsRefused()
    {
        QString noDisk = kSaved;
        noDisk.replace(QLatin1String("dev='vda'"), QLatin1String("dev='sda'"));
        const Result<QString> r = liveForkDefinition(noDisk, kForkDefinition);
        QVERIFY(!r);
        QVERIFY2(r.error().message().contains(QLatin1String("remove the snapshot")), qPrintable(r.error().message()));
        QString noNic = kSaved;
        noNic.replace(QLatin1String("<interface"), QLatin1String("<hostdev"));
        QVERIFY(!liveForkDefinition(noNic, kForkDefinition));
    }
};

QTEST_GUILESS_MAIN(TestSaveImage)
#include "test_saveimage.moc"
