#pragma once
// libvirt's save image (what virDomainSave and an external memory snapshot write, and
// virDomainRestore reads): a 92-byte header, the domain's XML and a cookie in a padded
// block, then QEMU's migration stream. A live fork resumes a checkpoint under another
// domain's name and UUID, which virDomainRestoreFlags' own XML override refuses (its ABI
// check wants both unchanged): so the fork gets a copy of the image with its own XML in the
// block, and the stream byte for byte.
#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace airlock {

struct SaveImageHeader {
    QByteArray xml;       // without its terminating NUL
    QByteArray cookie;    // libvirt's save cookie (CPU details), without its NUL
    quint32 dataLength = 0; // the padded block: the stream starts at 92 + dataLength
};

namespace saveimage {
constexpr qsizetype kHeaderBytes = 92;
constexpr quint32 kMaxDataBytes = 16u << 20; // libvirt writes the XML plus 64 KiB of room

// Reads and checks the header of an uncompressed, complete version-2 image.
Result<SaveImageHeader> read(const QString &path);
// `to` as a copy of `from` with `xml` in place of its domain XML (the block keeps its
// length, so it must fit); the file is private to its owner. Nothing is left at `to` on
// failure.
Status copyWithXml(const QString &from, const QString &to, const QByteArray &xml);
} // namespace saveimage

} // namespace airlock
